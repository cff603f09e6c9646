// What the service observes of every API response, in one place: one log line, the request
// metrics (route, method, status, error code, latency, idempotency replays and conflicts) and a
// record of the request log (src/request-log/, written later in batches). It reads what the
// pipeline recorded on the request's state (src/http/request-state.ts), never the answer.
// Installed at the root of the app (src/app.ts), so the framework's own 404 is counted too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { metrics } from '../metrics/registry.js';
import { logRequest } from '../request-log/capture.js';
import type {} from '../tracing/request-trace.js';
import { maskSecrets } from './logging.js';

function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

interface RequestLine {
  method: string;
  url: string;
  statusCode: number;
  responseTime: number;
  ip: string;
  errorCode?: string;
  replayed?: boolean;
}

function observe(request: FastifyRequest, reply: FastifyReply): void {
  const status = reply.statusCode;
  // (no state outside the API's routes: the framework's 404, the OpenAPI document)
  const state = request.state;
  const errorCode = state?.errorCode ?? (status >= 500 ? 'internal' : '');
  const replayed = state?.replayed === true;
  const route = routeOf(request);
  const responseTime = Math.round(reply.elapsedTime * 10) / 10;
  metrics.response({
    route,
    method: request.method,
    status,
    errorCode,
    seconds: reply.elapsedTime / 1000,
    replayed,
    exemplar: request.trace?.sampled
      ? { trace_id: request.trace.traceId, span_id: request.trace.spanId }
      : undefined,
  });
  if (state) logRequest(state, request, reply, route, errorCode);
  const line: RequestLine = {
    method: request.method,
    // (a key a client put in its URL is masked: src/monitoring/logging.ts)
    url: maskSecrets(request.url),
    statusCode: status,
    responseTime,
    ip: request.ip,
  };
  // Added in this order, as before; no object built for what a line does not carry.
  if (errorCode) line.errorCode = errorCode;
  if (replayed) line.replayed = replayed;
  if (status >= 500) request.log.warn(line, 'request completed');
  else request.log.info(line, 'request completed');
}

export function installRequestObservation(app: FastifyInstance): void {
  // A callback hook: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    observe(request, reply);
    done();
  });
}
