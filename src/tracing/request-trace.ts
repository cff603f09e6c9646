// The trace of one API request, as the rest of the service reads it (the log line, the request
// log, the latency histogram's exemplar): set by src/tracing/fastify.ts when tracing is on, absent
// otherwise. A leaf: it imports only the OpenTelemetry API's types.
import type { Context, Tracer } from '@opentelemetry/api';

export interface RequestTrace {
  /** 32 hex digits: the caller's trace when it sent `traceparent`, else a new one. */
  traceId: string;
  /** 16 hex digits: the server span of the request. */
  spanId: string;
  /** Whether the trace is sampled (exported): only then is it worth an exemplar. */
  sampled: boolean;
  /** The context of the server span: the parent of the request's own spans. */
  context: Context;
  /** The service's tracer. */
  tracer: Tracer;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's trace, with tracing on (src/tracing/fastify.ts); undefined when it is off. */
    trace?: RequestTrace;
  }
}
