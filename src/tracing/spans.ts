// The request's own spans: the steps that cost time (authentication, rate limiting, the
// idempotency check and claim), each a child of the server span, and the context in which their
// statements run (the pg and ioredis spans are their children). With tracing off a request has
// no `trace` and each wrapper calls its step directly.
import { type Context, context, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from './request-trace.js';

type Step = (request: FastifyRequest, reply: FastifyReply) => unknown;

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** The contract's error code of a step's refusal (an ApiError), without importing it. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Runs `work` in a span named `name`, child of `parent`; the span ends when the work settles. */
export function inSpan<T>(tracer: Tracer, parent: Context, name: string, work: () => T): T {
  const span = tracer.startSpan(name, undefined, parent);
  const failed = (error: unknown) => {
    const code = codeOf(error);
    if (code) span.setAttribute('invoicing.error_code', code);
    else span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    failed(error);
    throw error;
  }
  if (isPromiseLike(result)) {
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(error);
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

/** A step of the pipeline in a span of its own when the request is traced. */
export function tracedStep(name: string, step: Step): Step {
  return (request, reply) => {
    const traced = request.trace;
    if (!traced) return step(request, reply);
    return inSpan(traced.tracer, traced.context, name, () => step(request, reply));
  };
}

/** `work` in a span of the request's trace, or simply `work` when the request is not traced. */
export function withRequestSpan<T>(request: FastifyRequest, name: string, work: () => T): T {
  const traced = request.trace;
  return traced ? inSpan(traced.tracer, traced.context, name, work) : work();
}
