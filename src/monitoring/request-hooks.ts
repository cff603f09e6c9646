// What the service observes of every API response, in one place: one log line, the request
// metrics (route, method, status, error code, latency, idempotency replays and conflicts) and a
// record of the request log (src/request-log/, written later in batches).
// Installed at the root of the app (src/app.ts), so the framework's own 404 is counted too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES } from '../errors.js';
import { metrics } from '../metrics/registry.js';
import { logRequest } from '../request-log/capture.js';

/** The error code of a failed request, read from the error envelope it is answered with. */
const errorCodes = new WeakMap<FastifyRequest, string>();
const ENVELOPE_START = /^\{"error":\{"code":"([a-z_]+)"/;
const KNOWN_CODES = new Set<string>(ERROR_CODES);

/** Whatever answered (the error handler, a replayed stored answer), the envelope says the code. */
function noteErrorCode(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  if (reply.statusCode < 400 || typeof payload !== 'string') return;
  const code = ENVELOPE_START.exec(payload)?.[1];
  if (code && KNOWN_CODES.has(code)) errorCodes.set(request, code);
}

function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

function observe(request: FastifyRequest, reply: FastifyReply): void {
  const status = reply.statusCode;
  const errorCode = errorCodes.get(request) ?? (status >= 500 ? 'internal' : '');
  const replayed = reply.getHeader('idempotency-replay') === 'true';
  const route = routeOf(request);
  const responseTime = Math.round(reply.elapsedTime * 10) / 10;
  metrics.response({
    route,
    method: request.method,
    status,
    errorCode,
    seconds: reply.elapsedTime / 1000,
    replayed,
  });
  logRequest(request, reply, route, errorCode, replayed);
  const line = {
    method: request.method,
    url: request.url,
    statusCode: status,
    responseTime,
    ip: request.ip,
    ...(errorCode ? { errorCode } : {}),
    ...(replayed ? { replayed } : {}),
  };
  if (status >= 500) request.log.warn(line, 'request completed');
  else request.log.info(line, 'request completed');
}

export function installRequestObservation(app: FastifyInstance): void {
  // Callback hooks: no promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    noteErrorCode(request, reply, payload);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    observe(request, reply);
    done();
  });
}
