// Tracing (OpenTelemetry), started by `serve` before it loads the server's modules: the SDK must
// hook pg and ioredis before they are imported. Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set or
// OTEL_TRACES_EXPORTER names an exporter (other than `none`): the signal's own
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT only says where, with OTEL_TRACES_EXPORTER=otlp. Off, not one
// of these modules is loaded and nothing is sent anywhere. On, the SDK
// reads everything else from the standard variables itself: protocol (http/protobuf, http/json,
// grpc), headers, sampler (OTEL_TRACES_SAMPLER, e.g. parentbased_traceidratio with
// OTEL_TRACES_SAMPLER_ARG=0.01), OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, W3C propagation.
//
// The SDK is pinned to its last line that runs on Node 20 as well as 22 and 24 (0.223.x; 0.300
// needs Node 22.15). The project is ESM: the instrumentations reach imported modules through the
// SDK's documented ESM hook (import-in-the-middle), told to wrap only the modules they name.
// Only traces: no metrics or logs go through OTLP (metrics stay Prometheus on OPS_PORT).

import { register } from 'node:module';
import { hostname } from 'node:os';
import { trace } from '@opentelemetry/api';
import { buildInfo } from '../build-info.js';
import { onServerSpan } from './fastify.js';
import { ScrubbingSpanProcessor } from './scrub.js';
import type { Tracing } from './tracing.js';

export type { Tracing };

/** The service's own spans' instrumentation scope. */
export const TRACER_NAME = 'invoicing-partner-api';
export const DEFAULT_SERVICE_NAME = 'invoicing-partner-api';

type Env = Record<string, string | undefined>;

/** Whether the standard variables ask for traces to be exported. */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').trim();
  if (exporters !== '') return exporters.split(',').some((name) => name.trim() !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/** One line for the start's log: whether tracing is on, and where its spans go. */
export function tracingSummary(env: Env, on: boolean): { tracing: string; [field: string]: string } {
  if (!on) {
    return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
      ? { tracing: 'off', why: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT alone: set OTEL_TRACES_EXPORTER=otlp too' }
      : { tracing: 'off' };
  }
  return {
    tracing: 'on',
    exporter: env.OTEL_TRACES_EXPORTER?.trim() || 'otlp',
    protocol:
      (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() || 'http/protobuf',
    sampler: env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on',
  };
}

/** Redis commands are named, never their arguments (values, keys of counters). */
function commandOnly(command: string): string {
  return command;
}

let started: Tracing | null = null;

/**
 * Starts the SDK when the variables ask for it (once per process), else returns null having loaded
 * nothing. Must run before the first import of pg, ioredis or fastify.
 */
export async function startTracing(env: Env = process.env): Promise<Tracing | null> {
  if (started) return started;
  if (!tracingRequested(env)) return null;
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, registerOptions);

  const [
    { NodeSDK },
    { resourceFromAttributes, envDetector, hostDetector },
    pgModule,
    ioredisModule,
    undiciModule,
    fastifyOtelModule,
    utils,
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
    import('@fastify/otel'),
    // The SDK's own reading of OTEL_TRACES_EXPORTER and the protocol, so that the scrubbing
    // processor can run before its exporting one (not in the package's index; pinned version).
    import('@opentelemetry/sdk-node/build/src/utils.js'),
  ]);
  const fastifyOtel = new fastifyOtelModule.FastifyOtelInstrumentation({
    // One server span per request; the steps that cost time get spans of their own (src/tracing/).
    instrumentHooks: false,
    recordExceptions: false,
    requestHook: onServerSpan,
  });
  const info = buildInfo();
  const sdk = new NodeSDK({
    // Replaced by OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the environment's detector wins).
    resource: resourceFromAttributes({
      'service.name': DEFAULT_SERVICE_NAME,
      'service.version': info.version,
      'service.instance.id': `${hostname()}:${process.pid}`,
      ...(info.commit !== 'unknown' ? { 'vcs.ref.head.revision': info.commit } : {}),
    }),
    resourceDetectors: [envDetector, hostDetector],
    spanProcessors: [new ScrubbingSpanProcessor(), ...utils.getSpanProcessorsFromEnv(undefined)],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new pgModule.PgInstrumentation({
        // Statements of a request (or a webhook attempt) only: not the background work of every second.
        requireParentSpan: true,
        enhancedDatabaseReporting: false, // never the values
        ignoreConnectSpans: true,
      }),
      new ioredisModule.IORedisInstrumentation({
        requireParentSpan: true,
        dbStatementSerializer: commandOnly,
      }),
      new undiciModule.UndiciInstrumentation({ requireParentforSpans: true }),
      fastifyOtel,
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  started = {
    tracer: trace.getTracer(TRACER_NAME, info.version),
    fastifyPlugin: () => fastifyOtel.plugin(),
    shutdown: () => sdk.shutdown(),
  };
  return started;
}
