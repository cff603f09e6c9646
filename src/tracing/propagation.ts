// W3C Trace Context between the service's pieces of work: the `traceparent` of the work running now
// (stored with a webhook event, so that its deliveries join the trace of the write that caused it),
// and the context a stored one names. With tracing off there is no active span: null, and nothing
// is stored.
import {
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  trace,
} from '@opentelemetry/api';

/** The `traceparent` of the active span, or null (tracing off, or no traced work running). */
export function activeTraceparent(): string | null {
  const span = trace.getSpan(context.active());
  if (!span) return null;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!isSpanContextValid(span.spanContext())) return null;
  return `00-${traceId}-${spanId}-${(traceFlags & 1).toString(16).padStart(2, '0')}`;
}

/** The context a stored `traceparent` names (a root context when it is null or unreadable). */
export function contextOfTraceparent(traceparent: string | null): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** The headers that carry `active`'s trace to another service (`traceparent`, `tracestate`). */
export function traceHeaders(active: Context): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(active, headers);
  return headers;
}
