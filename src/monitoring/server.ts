// The monitoring server: a small HTTP server of its own on OPS_HOST:OPS_PORT (127.0.0.1 by
// default), apart from the partner API, which keeps exactly its 14 routes.
//   GET /healthz   200 while the process runs (liveness)
//   GET /readyz    200 when the database answers and is migrated ("degraded" while Redis is
//                  down: limits then count in memory), otherwise 503 with the reason; 503
//                  "stopping" from the moment the service is asked to stop
//   GET /metrics   Prometheus text (src/metrics/registry.ts)

import Fastify, { type FastifyBaseLogger } from 'fastify';
import { buildInfo } from '../build-info.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { metrics, type RateLimitStoreState, type WatchedPool } from '../metrics/registry.js';
import { REQUEST_TIMEOUT_MS, SERVER_TIMEOUT_OPTIONS } from '../server-timeouts.js';
import { watchBacklog, webhookRegistry } from '../webhooks/metrics.js';
import { readiness } from './readiness.js';

export interface MonitoringSources {
  handle: DatabaseHandle;
  rateLimiter: { storeState(): RateLimitStoreState };
}

export interface MonitoringServer {
  /** e.g. http://127.0.0.1:9464 */
  url: string;
  port: number;
  /** From now on /readyz answers 503: the service is stopping, send it nothing new. */
  markStopping(): void;
  close(): Promise<void>;
}

const startedAt = Date.now();

export async function startMonitoringServer(
  config: Pick<Config, 'opsHost' | 'opsPort'>,
  sources: MonitoringSources,
  log?: FastifyBaseLogger,
): Promise<MonitoringServer> {
  metrics.collectProcessMetrics();
  if (sources.handle.pool) metrics.watchPool(sources.handle.pool as unknown as WatchedPool);
  metrics.watchRateLimitStore(() => sources.rateLimiter.storeState());
  metrics.include(webhookRegistry);
  watchBacklog(sources.handle.db);
  metrics.setBuildInfo(buildInfo());

  const server = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    http: SERVER_TIMEOUT_OPTIONS,
    requestTimeout: REQUEST_TIMEOUT_MS,
  });
  server.get('/healthz', async () => ({
    status: 'ok',
    pid: process.pid,
    uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
  }));
  let stopping = false;
  metrics.watchReadiness(
    async () =>
      !stopping &&
      (await readiness(sources.handle, () => sources.rateLimiter.storeState())).status !== 'not_ready',
  );
  server.get('/readyz', async (_request, reply) => {
    if (stopping) {
      reply.code(503);
      return { status: 'stopping' };
    }
    const result = await readiness(sources.handle, () => sources.rateLimiter.storeState());
    if (result.status === 'not_ready') {
      log?.warn({ reason: result.checks.database.reason }, 'not ready');
      reply.code(503);
    }
    return result;
  });
  // OpenMetrics (with the latency exemplars) when the scraper asks for it, as Prometheus does.
  server.get('/metrics', async (request, reply) => {
    const openMetrics = String(request.headers.accept ?? '').includes('application/openmetrics-text');
    reply.type(openMetrics ? metrics.openMetricsContentType : metrics.contentType);
    return metrics.text({ openMetrics });
  });

  await server.listen({ host: config.opsHost, port: config.opsPort ?? 0 });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : (config.opsPort ?? 0);
  const host = config.opsHost.includes(':') ? `[${config.opsHost}]` : config.opsHost;
  return {
    url: `http://${host}:${port}`,
    port,
    markStopping: () => {
      stopping = true;
    },
    close: () => server.close(),
  };
}
