// Tracing of the API, installed by buildApp only when tracing is on (src/tracing/start.ts): the
// server span of @fastify/otel (named by the route's template, never by a path's id; the
// caller's `traceparent` continued), the request's trace on `request.trace` for the log line, the
// request log and the latency exemplar, and a span for the response (serialization, compression,
// the write). The spans of the pipeline's steps are src/tracing/spans.ts's.
import { type Span, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type {} from './request-trace.js';
import type { Tracing } from './tracing.js';

/** Attributes of the server span that are the service's own. */
export const ATTRIBUTES = {
  companyId: 'invoicing.company_id',
  apiKeyId: 'invoicing.api_key_id',
  errorCode: 'invoicing.error_code',
  requestId: 'invoicing.request_id',
} as const;

/** What the request's state says, read without importing the pipeline (src/http/request-state.ts). */
interface StateView {
  caller?: { apiKeyId: number; companyId: number } | null;
  refusedKey?: { apiKeyId: number; companyId: number } | null;
  errorCode?: string | null;
}

const responseSpans = new WeakMap<FastifyRequest, Span>();

export async function installTracing(app: FastifyInstance, tracing: Tracing): Promise<void> {
  await app.register(tracing.fastifyPlugin() as FastifyPluginCallback);
  const { tracer } = tracing;
  app.addHook('onRequest', (request, _reply, done) => {
    const otel = request.opentelemetry();
    if (otel.span && otel.context) {
      const { traceId, spanId, traceFlags } = otel.span.spanContext();
      const sampled = (traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
      request.trace = { traceId, spanId, sampled, context: otel.context, tracer };
      // Every line of this request's logger names its trace (pino's child bindings).
      (request.log as Partial<Logger>).setBindings?.({ trace_id: traceId, span_id: spanId });
      otel.span.setAttribute(ATTRIBUTES.requestId, String(request.id));
    }
    done();
  });
  // Before the span ends (@fastify/otel ends it in the route's last onSend hook).
  app.addHook('onSend', (request, reply, payload, done) => {
    const span = request.opentelemetry().span;
    if (span) {
      const state = (request as { state?: StateView }).state;
      const key = state?.caller ?? state?.refusedKey;
      if (key) {
        span.setAttribute(ATTRIBUTES.companyId, key.companyId);
        span.setAttribute(ATTRIBUTES.apiKeyId, key.apiKeyId);
      }
      if (state?.errorCode) span.setAttribute(ATTRIBUTES.errorCode, state.errorCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (request.trace) {
        responseSpans.set(request, tracer.startSpan('response', undefined, request.trace.context));
      }
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = responseSpans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      span.end();
      responseSpans.delete(request);
    }
    done();
  });
}

/** The server span's name: the method and the route's template (`GET /api/v1/partner/customers/:id`). */
export function serverSpanName(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  return route ? `${request.method} ${route}` : request.method;
}

/** The hook @fastify/otel calls as it starts a server span: its name, and the path without its query. */
export function onServerSpan(span: Span, request: FastifyRequest): void {
  span.updateName(serverSpanName(request));
  const url = request.url;
  const query = url.indexOf('?');
  span.setAttribute('url.path', query === -1 ? url : url.slice(0, query));
}
