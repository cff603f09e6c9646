// The deployment the rolling rehearsal runs: its own PostgreSQL and Redis, the service started the
// frame's way (service.ts: companies, keys, webhook endpoints, three instances behind HAProxy),
// Prometheus; and waiting until every instance is ready again.
import path from 'node:path';
import type { HaproxyServer } from './haproxy.js';
import { type Instance, instanceEnv } from './instances.js';
import type { KeyOfCompany } from './load.js';
import { createCluster, type PostgresCluster, withClient } from './postgres.js';
import { freePorts, getText, waitUntil } from './processes.js';
import { say } from './progress.js';
import { type PrometheusServer, startPrometheus } from './prometheus.js';
import type { Receivers } from './receivers.js';
import { createRedis, type RedisServer } from './redis.js';
import { seedService, startInstances } from './service.js';

export const INSTANCES = 3;
export const COMPANIES = 3;
export const KEYS_PER_COMPANY = 2;
export const RECEIVERS_PER_COMPANY = 2;
/** How long a stopping instance keeps serving while HAProxy notices (deploy/haproxy/haproxy.cfg). */
export const DRAIN_MS = 5000;

export interface Stack {
  pg: PostgresCluster;
  redis: RedisServer;
  instances: Instance[];
  haproxy: HaproxyServer;
  prometheus: PrometheusServer;
  databaseUrl: string;
  cliEnv: NodeJS.ProcessEnv;
  keys: KeyOfCompany[];
  companyIds: number[];
  receivers: Receivers;
}

export async function bringUp(runDir: string, logDir: string): Promise<Stack> {
  const [pgPort, redisPort, proxyPort, promPort, ...instancePorts] = await freePorts(4 + INSTANCES * 2);
  const pg = await createCluster(runDir, pgPort!, path.join(logDir, 'postgres.log'));
  await pg.start();
  await withClient(pg.url('postgres'), (client) => client.query('create database invoicing'));
  const databaseUrl = pg.url('invoicing');
  say(`PostgreSQL ${pg.version.replace(/^postgres \(PostgreSQL\) /, '')} on port ${pg.port}`);
  const redis = createRedis(redisPort!, path.join(logDir, 'redis.log'));
  await redis.start();
  say(`redis-server on port ${redis.port}`);

  const place = (index: number) => ({
    port: instancePorts[index * 2]!,
    opsPort: instancePorts[index * 2 + 1]!,
    databaseUrl,
    redisUrl: redis.url,
    drainMs: DRAIN_MS,
  });
  // The operator's commands run with the instances' environment (same database, same webhook policy).
  const cliEnv = instanceEnv(place(0));
  // Webhook endpoints from the start, as in production; their receivers answer at once until the hold.
  const { companyIds, keys, receivers } = await seedService(cliEnv, {
    companies: COMPANIES,
    keysPerCompany: KEYS_PER_COMPANY,
    receiversPerCompany: RECEIVERS_PER_COMPANY,
  });
  const { instances, haproxy } = await startInstances({
    count: INSTANCES,
    place,
    proxyPort: proxyPort!,
    runDir,
    logDir,
  });
  const prometheus = await startPrometheus({
    port: promPort!,
    opsPorts: instances.map((instance) => instance.opsPort),
    runDir,
    logFile: path.join(logDir, 'prometheus.log'),
  });
  say(`Prometheus on port ${promPort}`);
  return { pg, redis, instances, haproxy, prometheus, databaseUrl, cliEnv, keys, companyIds, receivers };
}

/** Waits until every instance's /readyz says `ready` (not degraded) and HAProxy sees it UP. */
export async function allReady(stack: Stack, timeoutMs: number): Promise<void> {
  await waitUntil(
    'every instance ready (not degraded)',
    async () => {
      for (const instance of stack.instances) {
        const { status, text } = await getText(`http://127.0.0.1:${instance.opsPort}/readyz`);
        if (status !== 200 || (JSON.parse(text) as { status: string }).status !== 'ready') return false;
      }
      return true;
    },
    timeoutMs,
    200,
  );
  for (const instance of stack.instances) await stack.haproxy.waitFor(instance.name, 'UP', timeoutMs);
}

/**
 * Sessions of the instances idle inside a transaction for more than a second now: what a
 * connection held across a slow outbound call looks like (a request's own transactions are idle
 * between two statements for milliseconds only).
 */
export async function heldIdleInTransaction(databaseUrl: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ count: string }>(
      `select count(*) from pg_stat_activity
        where datname = current_database() and state = 'idle in transaction'
          and now() - state_change > interval '1 second' and pid <> pg_backend_pid()`,
    );
    return Number(result.rows[0]?.count ?? 0);
  });
}
