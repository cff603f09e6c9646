// What the request log takes of an answered request (src/monitoring/request-hooks.ts calls
// `logRequest` once per response of an API route): who (the key and its company), what (method,
// route template, status, error code), which (request id, Idempotency-Key, replayed), how long,
// from where and when, all read from the request's state (src/http/request-state.ts). Never a
// body, a query string, a path id or the key itself. A request is logged when its key was found:
// authenticated, or found and refused (expired, revoked) so that support sees what a partner's old
// key still sends. Requests without a known key (bad keys, 404s) are not.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestState } from '../http/request-state.js';
import type {} from '../tracing/request-trace.js';
import type { RequestLog } from './writer.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The request log of this app (src/app.ts). */
    requestLog: RequestLog;
  }
}

/**
 * The Idempotency-Key as sent, also one the contract refuses (support sees what came), if it is
 * printable text of at most 191 characters (the contract's longest); anything else is not kept.
 */
const KEPT_IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,191}$/;

function keptIdempotencyKey(sent: string | undefined): string | null {
  return sent !== undefined && KEPT_IDEMPOTENCY_KEY.test(sent) ? sent : null;
}

/** Hands the request's record to the log (in memory; written later, in a batch). */
export function logRequest(
  state: RequestState,
  request: FastifyRequest,
  reply: FastifyReply,
  route: string,
  errorCode: string,
): void {
  const log = request.server.requestLog;
  if (!log?.recording) return;
  const key = state.caller ?? state.refusedKey;
  if (!key) return;
  const elapsedMs = reply.elapsedTime;
  log.record({
    at: log.now() - elapsedMs,
    companyId: key.companyId,
    apiKeyId: key.apiKeyId,
    method: request.method,
    route,
    status: reply.statusCode,
    errorCode: errorCode || null,
    requestId: String(request.id),
    idempotencyKey: keptIdempotencyKey(state.sentIdempotencyKey),
    replayed: state.replayed,
    durationUs: Math.round(elapsedMs * 1000),
    // (none when the client went away before the answer was done)
    clientIp: request.ip ?? '',
    deprecatedUse: state.deprecatedUse,
    traceId: request.trace?.traceId ?? null,
  });
}
