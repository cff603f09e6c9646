// The timeouts of every HTTP server of the service (the API, the monitoring server, the docs
// server, the admin socket), in one place. Node's own defaults close a connection that never
// finishes its headers only after about 80 s (a 60 s headersTimeout checked every 30 s).
// - headersTimeout 10 s: a request's headers are a few hundred bytes; a client that takes longer
//   is holding a connection, not sending a request.
// - requestTimeout 300 s: the whole request, body included. The largest body (BODY_LIMIT_BYTES,
//   1 MiB by default) from a till on a weak mobile link (GPRS/EDGE, about 28 kbit/s) takes
//   1 MiB × 8 / 28 kbit/s ≈ 300 s; a faster link is never cut.
// - connections are checked every second, so a bound is kept within about a second of itself.
import type { Server, ServerOptions } from 'node:http';

export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 300_000;
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** The options of node:http's createServer (also Fastify's `http` option). */
export const SERVER_TIMEOUT_OPTIONS: ServerOptions = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
};

/**
 * For a server created without SERVER_TIMEOUT_OPTIONS: the two bounds. (The checking interval is
 * fixed at creation; pass the options to createServer where possible.)
 */
export function applyServerTimeouts(server: Server): void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
}
