// What the request log takes of an answered request (src/monitoring/request-hooks.ts calls
// `logRequest` once per response): who (the key and its company), what (method, route template,
// status, error code), which (request id, Idempotency-Key, replayed), how long, from where and
// when. Never a body, a query string, a path id or the key itself. A request is logged when its
// key was found: authenticated, or found and refused (expired, revoked) so that support sees
// what a partner's old key still sends. Requests without a known key (bad keys, 404s) are not.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestLog } from './writer.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The request log of this app (src/app.ts). */
    requestLog: RequestLog;
  }
}

interface KnownKey {
  apiKeyId: number;
  companyId: number;
}

/** Requests whose key was found and refused: the key they are logged under. */
const refusedKeys = new WeakMap<FastifyRequest, KnownKey>();

/** Authentication found the key but refused it (expired, revoked): the request is still logged. */
export function noteRefusedKey(request: FastifyRequest, key: KnownKey): void {
  refusedKeys.set(request, key);
}

/** Requests that used deprecated items (src/http/deprecation.ts): which ones, for the record. */
const deprecatedUses = new WeakMap<FastifyRequest, string[]>();

/** The request used these deprecated items: its record keeps them (`deprecations usage`). */
export function noteDeprecatedUse(request: FastifyRequest, items: string[]): void {
  deprecatedUses.set(request, items);
}

/**
 * The Idempotency-Key as sent, also one the contract refuses (support sees what came), if it is
 * printable text of at most 191 characters (the contract's longest); anything else is not kept.
 */
const KEPT_IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,191}$/;

function idempotencyKeyOf(request: FastifyRequest): string | null {
  const header = request.headers['idempotency-key'];
  return typeof header === 'string' && KEPT_IDEMPOTENCY_KEY.test(header) ? header : null;
}

/** Hands the request's record to the log (in memory; written later, in a batch). */
export function logRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  route: string,
  errorCode: string,
  replayed: boolean,
): void {
  const log = request.server.requestLog;
  if (!log?.recording) return;
  const key = request.caller ?? refusedKeys.get(request);
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
    idempotencyKey: idempotencyKeyOf(request),
    replayed,
    durationUs: Math.round(elapsedMs * 1000),
    // (none when the client went away before the answer was done)
    clientIp: request.ip ?? '',
    deprecatedUse: deprecatedUses.get(request) ?? null,
  });
}
