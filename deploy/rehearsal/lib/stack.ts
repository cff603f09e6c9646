// The deployment the rehearsal runs: its own PostgreSQL and Redis, the companies, keys and webhook
// endpoints made with bin/invoicing, three instances behind HAProxy, Prometheus; and the moves made
// on it (restarting an instance, waiting until every instance is ready again). An instance that
// exits unasked is recorded as a crash and started again, as systemd's Restart=on-failure would.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { invoicing } from './checks.js';
import { seedCompanies } from './companies.js';
import { type HaproxyServer, startHaproxy } from './haproxy.js';
import { createInstance, type Instance, instanceEnv } from './instances.js';
import type { KeyOfCompany } from './load.js';
import { createCluster, type PostgresCluster, withClient } from './postgres.js';
import { freePorts, getText, waitUntil } from './processes.js';
import { now, say, seconds } from './progress.js';
import { type PrometheusServer, startPrometheus } from './prometheus.js';
import { type Receivers, startReceivers } from './receivers.js';
import { createRedis, type RedisServer } from './redis.js';

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

  const settings = (index: number) => ({
    port: instancePorts[index * 2]!,
    opsPort: instancePorts[index * 2 + 1]!,
    databaseUrl,
    redisUrl: redis.url,
    drainMs: DRAIN_MS,
  });
  // The operator's commands run with the instances' environment (same database, same webhook policy).
  const cliEnv = instanceEnv(settings(0));
  await invoicing(cliEnv, ['migrate']);
  const { companyIds, keys } = await seedCompanies(cliEnv, COMPANIES, KEYS_PER_COMPANY);
  say(`${COMPANIES} companies (bin/invoicing demo) with ${KEYS_PER_COMPANY} live keys each`);
  // Webhook endpoints from the start, as in production; their receivers answer at once until the hold.
  const receivers = await startReceivers(COMPANIES * RECEIVERS_PER_COMPANY);
  await createEndpoints(cliEnv, companyIds, receivers);
  say(`${receivers.urls.length} webhook endpoints (bin/invoicing webhooks create), every event type`);

  const instances = Array.from({ length: INSTANCES }, (_, index) =>
    createInstance({
      name: `invoicing${index + 1}`,
      ...settings(index),
      logFile: path.join(logDir, `invoicing${index + 1}.log`),
      onCrash: (exit) => supervise(instances[index]!, exit),
    }),
  );
  await Promise.all(instances.map((instance) => instance.start()));
  say(`${INSTANCES} instances ready: ${instances.map((i) => `${i.port} (ops ${i.opsPort})`).join(', ')}`);
  const haproxy = await startHaproxy({
    port: proxyPort!,
    instances,
    runDir,
    logFile: path.join(logDir, 'haproxy.log'),
  });
  for (const instance of instances) await haproxy.waitFor(instance.name, 'UP', 30_000);
  say(`HAProxy on port ${proxyPort}: every instance UP`);
  const prometheus = await startPrometheus({
    port: promPort!,
    opsPorts: instances.map((instance) => instance.opsPort),
    runDir,
    logFile: path.join(logDir, 'prometheus.log'),
  });
  say(`Prometheus on port ${promPort}`);
  return { pg, redis, instances, haproxy, prometheus, databaseUrl, cliEnv, keys, companyIds, receivers };
}

/** Instances that exited without being asked to, as systemd's Restart=on-failure would see them. */
export const crashes: { name: string; at: number; exit: string }[] = [];
const MAX_CRASH_RESTARTS = 5;
const restarting = new Map<Instance, Promise<void>>();

/** Set on Ctrl-C or SIGTERM: the exits that follow are asked for, nothing is started again. */
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    interrupted = true;
  });

/** A crashed instance is recorded and started again after a second (deploy/invoicing.service). */
function supervise(instance: Instance, exit: string): void {
  if (interrupted) return;
  crashes.push({ name: instance.name, at: now(), exit });
  say(`!!! ${instance.name} exited unasked (${exit}); see its log. Starting it again, as systemd would`);
  if (crashes.length > MAX_CRASH_RESTARTS) {
    say(`!!! more than ${MAX_CRASH_RESTARTS} crashes: no more restarts`);
    return;
  }
  const again = sleep(1000)
    .then(() => (interrupted ? { ms: 0 } : instance.start()))
    .then(
      ({ ms }) => say(`${instance.name} ready again after its crash (${seconds(ms)})`),
      (error: Error) => say(`!!! ${instance.name} did not start again: ${error.message}`),
    )
    .finally(() => restarting.delete(instance));
  restarting.set(instance, again);
}

export async function restartInstance(
  stack: Stack,
  instance: Instance,
  signal: 'SIGTERM' | 'SIGKILL',
): Promise<string> {
  await restarting.get(instance);
  let stopped: string;
  if (signal === 'SIGTERM') {
    const { ms, killed } = await instance.stop();
    stopped = killed ? `did not exit within ${seconds(DRAIN_MS + 30_000)}: SIGKILL` : `exit ${seconds(ms)}`;
  } else {
    await instance.kill();
    stopped = 'killed';
  }
  const { ms } = await instance.start();
  const upFrom = performance.now();
  await stack.haproxy.waitFor(instance.name, 'UP', 30_000);
  return `${stopped}, ready ${seconds(ms)}, UP in HAProxy +${seconds(performance.now() - upFrom)}`;
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

async function createEndpoints(
  cliEnv: NodeJS.ProcessEnv,
  companyIds: number[],
  receivers: Receivers,
): Promise<void> {
  let index = 0;
  for (const companyId of companyIds)
    for (let n = 0; n < RECEIVERS_PER_COMPANY; n++) {
      await invoicing(cliEnv, [
        'webhooks',
        'create',
        '--company',
        String(companyId),
        '--url',
        receivers.urls[index++]!,
        '--events',
        'all',
      ]);
    }
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
