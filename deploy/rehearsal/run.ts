// `npm run rehearsal`: the service run as in production, through the events of a real deployment,
// under a steady load (deploy/README.md, "Production rehearsal"). Its own PostgreSQL cluster and
// redis-server (both restarted here, so never the machine's shared ones), three instances of this
// checkout's compiled server behind HAProxy (deploy/haproxy/haproxy.cfg), Prometheus scraping
// their operations ports (deploy/prometheus/). It prints one table and exits 1 when a goal is
// missed, 2 when the rehearsal itself could not run.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { invoicingBin, repoRoot } from '../../bench/lib/paths.js';
import { countRows, exactlyOnce, invoicing } from './lib/checks.js';
import { type HaproxyServer, startHaproxy } from './lib/haproxy.js';
import { createInstance, type Instance, instanceEnv } from './lib/instances.js';
import { type KeyOfCompany, Load } from './lib/load.js';
import { createCluster, type PostgresCluster, withClient } from './lib/postgres.js';
import { freePorts, getText, installCleanup, stopAllChildren, waitUntil } from './lib/processes.js';
import { checkRules, type PrometheusServer, startPrometheus } from './lib/prometheus.js';
import { HOLD_MS, type Receivers, startReceivers } from './lib/receivers.js';
import { isRetryable, Recorder } from './lib/recorder.js';
import { createRedis, type RedisServer } from './lib/redis.js';
import {
  type EventWindow,
  endedWithin,
  failuresByKind,
  type Goal,
  latency,
  renderGoals,
  renderTable,
  rowsOf,
} from './lib/report.js';

const usage = `Usage: npm run rehearsal [-- --workers-per-key N --pause-ms MS --keep]

  --workers-per-key N  workers per API key (default 2; 3 companies x 2 keys)
  --pause-ms MS        pause between two operations of a worker (default 250, jittered)
  --keep               keep the run's temporary directory (PostgreSQL data, Prometheus data)

Logs, every request (requests.jsonl) and the table go to deploy/rehearsal/results/.`;

const { values: flags } = parseArgs({
  options: {
    'workers-per-key': { type: 'string' },
    'pause-ms': { type: 'string' },
    keep: { type: 'boolean' },
    help: { type: 'boolean' },
  },
});
if (flags.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

const INSTANCES = 3;
const COMPANIES = 3;
const KEYS_PER_COMPANY = 2;
const RECEIVERS_PER_COMPANY = 2;
const WORKERS_PER_KEY = Number(flags['workers-per-key'] ?? 2);
const PAUSE_MS = Number(flags['pause-ms'] ?? 250);
/** How long a stopping instance keeps serving while HAProxy notices (deploy/haproxy/haproxy.cfg). */
const DRAIN_MS = 5000;

// The timeline, in ms.
const WARMUP = 10_000;
const BASELINE = 15_000;
const BETWEEN_RESTARTS = 5000;
const SETTLE = 10_000;
const BEFORE_HOLD = 20_000;
const HOLD = 30_000;
const AFTER_HOLD = 15_000;
/** The p99 during the webhook hold may be at most this many times the p99 before it. */
const HOLD_P99_RATIO = 1.5;

const resultsDir = path.join(path.dirname(new URL(import.meta.url).pathname), 'results');
const logDir = path.join(resultsDir, 'logs');
const recorder = new Recorder();

function say(message: string): void {
  process.stderr.write(`[${(recorder.now() / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function versionOf(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .split('\n')[0]!
      .trim();
  } catch {
    return 'unknown';
  }
}

function machine(postgresVersion: string): string {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const cpu = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  return [
    `${cpu}, ${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, ${os.type()} ${os.release()}`,
    `load average at the start ${load}; Node ${process.version}; ${postgresVersion}`,
  ].join('\n');
}

interface Stack {
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

async function bringUp(runDir: string): Promise<Stack> {
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
  const keys: KeyOfCompany[] = [];
  const companyIds: number[] = [];
  for (let company = 0; company < COMPANIES; company++) {
    const demo = await invoicing<{ id: number; live_key: { key: string } }>(cliEnv, ['demo']);
    companyIds.push(demo.id);
    keys.push({ companyId: demo.id, key: demo.live_key.key });
    for (let extra = 1; extra < KEYS_PER_COMPANY; extra++) {
      const created = await invoicing<{ key: string }>(cliEnv, [
        'keys',
        'create',
        '--company',
        String(demo.id),
        '--mode',
        'live',
        '--scopes',
        'all',
      ]);
      keys.push({ companyId: demo.id, key: created.key });
    }
  }
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
const crashes: { name: string; at: number; exit: string }[] = [];
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
  crashes.push({ name: instance.name, at: recorder.now(), exit });
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

/** Runs `action` as an event, then lets the load run `settleMs` (the after window). */
async function event(
  name: string,
  action: () => Promise<string>,
  options: { beforeMs: number; afterMs: number; settleMs: number },
): Promise<EventWindow> {
  say(`${name}...`);
  const start = recorder.now();
  let detail: string;
  let failed = false;
  try {
    detail = await action();
  } catch (error) {
    // The event could not be carried out (e.g. a bounded wait expired): the run goes on, and the
    // table and the goals say so.
    failed = true;
    detail = `FAILED: ${(error as Error).message}`;
  }
  const end = recorder.now();
  say(`${name}: ${detail}`);
  await sleep(options.settleMs);
  return {
    name,
    detail,
    failed,
    start,
    end,
    until: recorder.now(),
    beforeMs: options.beforeMs,
    afterMs: options.afterMs,
  };
}

async function restartInstance(
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
async function allReady(stack: Stack, timeoutMs: number): Promise<void> {
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
async function heldIdleInTransaction(databaseUrl: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ count: string }>(
      `select count(*) from pg_stat_activity
        where datname = current_database() and state = 'idle in transaction'
          and now() - state_change > interval '1 second' and pid <> pg_backend_pid()`,
    );
    return Number(result.rows[0]?.count ?? 0);
  });
}

async function rehearse(stack: Stack): Promise<{ table: string; goals: Goal[]; notes: string[] }> {
  const notes: string[] = [];
  const runId = `rh${Date.now().toString(36)}`;
  const load = new Load({
    baseUrl: stack.haproxy.url,
    keys: stack.keys,
    workersPerKey: WORKERS_PER_KEY,
    pauseMs: PAUSE_MS,
    runId,
    recorder,
  });
  await load.prepare();
  const { receivers } = stack;
  const loadStart = recorder.now();
  load.start();
  say(
    `load: ${stack.keys.length * WORKERS_PER_KEY} workers on ${stack.keys.length} keys of ${COMPANIES} companies`,
  );
  await sleep(WARMUP + BASELINE);
  const events: EventWindow[] = [
    {
      name: 'steady load',
      detail: `${seconds(BASELINE)} after ${seconds(WARMUP)} of warm-up`,
      start: loadStart + WARMUP,
      end: recorder.now(),
      until: recorder.now(),
      beforeMs: 0,
      afterMs: 0,
      baseline: true,
    },
  ];

  for (const [index, instance] of stack.instances.entries()) {
    const last = index === stack.instances.length - 1;
    events.push(
      await event(`restart ${instance.name}`, () => restartInstance(stack, instance, 'SIGTERM'), {
        beforeMs: BETWEEN_RESTARTS,
        afterMs: BETWEEN_RESTARTS,
        settleMs: last ? SETTLE : BETWEEN_RESTARTS,
      }),
    );
  }
  const restarts = events.slice(1);
  const victim = stack.instances[1]!;
  events.push(
    await event(`SIGKILL ${victim.name}`, () => restartInstance(stack, victim, 'SIGKILL'), {
      beforeMs: SETTLE,
      afterMs: SETTLE,
      settleMs: SETTLE,
    }),
  );
  events.push(
    await event(
      'restart Redis',
      async () => {
        const { stopMs, startMs } = await stack.redis.restart();
        const from = performance.now();
        await allReady(stack, 60_000);
        return `down ${seconds(stopMs + startMs)}, instances ready again +${seconds(performance.now() - from)}`;
      },
      { beforeMs: SETTLE, afterMs: SETTLE, settleMs: SETTLE },
    ),
  );
  events.push(
    await event(
      'restart PostgreSQL',
      async () => {
        const { stopMs, startMs } = await stack.pg.restart();
        const from = performance.now();
        await allReady(stack, 60_000);
        return `fast shutdown ${seconds(stopMs)}, start ${seconds(startMs)}, all UP again +${seconds(performance.now() - from)}`;
      },
      { beforeMs: SETTLE, afterMs: SETTLE, settleMs: SETTLE },
    ),
  );
  const faults = events.slice(restarts.length + 1);

  // The webhook receivers turn slow for HOLD ms, after a steady window to compare with.
  await sleep(BEFORE_HOLD);
  let maxIdle = 0;
  const hold = await event(
    'webhook receivers slow',
    async () => {
      const before = receivers.stats().received;
      receivers.hold();
      const until = performance.now() + HOLD;
      while (performance.now() < until) {
        maxIdle = Math.max(maxIdle, await heldIdleInTransaction(stack.databaseUrl).catch(() => 0));
        await sleep(1000);
      }
      const stats = receivers.stats();
      receivers.release();
      return `${receivers.urls.length} receivers answering after ${seconds(HOLD_MS)} for ${seconds(HOLD)}: ${
        stats.received - before
      } deliveries, ${stats.maxHeld} held at once; up to ${maxIdle} sessions idle in a transaction for over 1 s`;
    },
    { beforeMs: BEFORE_HOLD, afterMs: AFTER_HOLD, settleMs: AFTER_HOLD },
  );
  events.push(hold);

  say('stopping the load');
  await load.stop();
  const loadEnd = recorder.now();

  // A call that failed for good is sent again, same key and bytes, as a partner's job would.
  const failedWrites = load.writes.filter((write) => write.outcome === 'failed');
  for (const write of failedWrites) {
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await write.resend();
        write.outcome = 'created';
        break;
      } catch (error) {
        write.error = (error as Error).message;
        await sleep(1000);
      }
    }
  }
  if (failedWrites.length > 0)
    notes.push(
      `${failedWrites.length} writes failed for good during the run (client gave up) and were sent again`,
    );

  // --- the goals
  const goals: Goal[] = [];
  const records = recorder.records;
  const inWindow = (from: number, to: number) => endedWithin(records, from, to);

  const failedEvents = events.filter((e) => e.failed);
  goals.push({
    name: 'every event carried out, no instance exited unasked',
    met: failedEvents.length === 0 && crashes.length === 0,
    detail:
      [
        ...failedEvents.map((e) => `${e.name}: ${e.detail}`),
        ...crashes.map((c) => {
          const during = events.filter((e) => e.start <= c.at).pop();
          return `${c.name} crashed (${c.exit}) at ${seconds(c.at)}${during ? `, during/after "${during.name}"` : ''}`;
        }),
      ].join('; ') || `${events.length - 1} events, no crash`,
  });

  const restartRecords = inWindow(restarts[0]!.start, restarts[restarts.length - 1]!.until);
  const restartFailures = failuresByKind(restartRecords);
  goals.push({
    name: 'rolling restart (SIGTERM, start, ready, one instance after the other): 0 failed requests',
    met: restartFailures.size === 0,
    detail:
      `${restartRecords.length} requests, ${[...restartFailures.values()].reduce((a, b) => a + b, 0)} failed ${
        restartFailures.size
          ? `(${[...restartFailures.entries()].map(([k, n]) => `${n}x ${k}`).join(', ')})`
          : ''
      }`.trim(),
  });

  const faultRecords = inWindow(faults[0]!.start, faults[faults.length - 1]!.until);
  const notRetryable = failuresByKind(faultRecords.filter((r) => !isRetryable(r.outcome)));
  const faultFailures = faultRecords.filter((r) => r.outcome !== 'ok').length;
  goals.push({
    name: 'SIGKILL, Redis and PostgreSQL restarts: only retryable answers',
    met: notRetryable.size === 0,
    detail: `${faultRecords.length} requests, ${faultFailures} failed, ${
      notRetryable.size === 0
        ? 'all retryable (429, 409 in flight, 5xx, no answer)'
        : `not retryable: ${[...notRetryable.entries()].map(([k, n]) => `${n}x ${k}`).join(', ')}`
    }`,
  });
  const answers500 = records.filter((r) => r.status === 500).length;
  if (answers500 > 0)
    notes.push(
      `${answers500} answers were 500 (retryable, but an internal error rather than 503 + Retry-After)`,
    );

  const once = await exactlyOnce(stack.databaseUrl, runId, load.writes);
  goals.push({
    name: 'every write exists exactly once (retried ones included)',
    met: once.wrong.length === 0 && once.strangers === 0 && once.writes > 0,
    detail: `${once.writes} writes, ${once.retried} retried by the client; ${
      once.wrong.length === 0
        ? 'each once'
        : `${once.wrong.length} not once: ${once.wrong
            .slice(0, 5)
            .map((w) => `${w.marker} x${w.count} (${w.retries} retries)`)
            .join(', ')}`
    }${once.strangers ? `; ${once.strangers} rows no write made` : ''}`,
  });

  await sleep(1500);
  const totals = await load.listTotals(INSTANCES * 2);
  const mismatches: string[] = [];
  for (const { companyId, resource, totals: answered } of totals) {
    const counted = await countRows(stack.databaseUrl, companyId, resource);
    if (answered.some((total) => total !== counted))
      mismatches.push(
        `company ${companyId} ${resource}: lists said ${[...new Set(answered)].join('/')}, count(*) ${counted}`,
      );
  }
  goals.push({
    name: 'list totals equal count(*) (asked through HAProxy, every instance)',
    met: mismatches.length === 0,
    detail:
      mismatches.length === 0
        ? `${totals.length} lists x ${INSTANCES * 2} asks, all equal`
        : mismatches.join('; '),
  });

  const before = latency(records, hold.start - hold.beforeMs, hold.start);
  const during = latency(records, hold.start, hold.end);
  const stats = receivers.stats();
  goals.push({
    name: `webhook receivers slow: p99 during <= ${HOLD_P99_RATIO}x p99 before`,
    met: stats.maxHeld > 0 && during.p99 <= before.p99 * HOLD_P99_RATIO,
    detail:
      stats.maxHeld === 0
        ? 'no delivery was held: the hold did not happen'
        : `p99 ${during.p99.toFixed(1)} ms during vs ${before.p99.toFixed(1)} ms before (${(during.p99 / before.p99).toFixed(2)}x)`,
  });

  // Prometheus, asked over its HTTP API.
  const up = await waitUntil(
    'Prometheus has scraped every instance',
    async () => {
      const samples = await stack.prometheus.query('up{job="invoicing"}');
      return samples.length === INSTANCES ? samples : false;
    },
    30_000,
    500,
  ).catch(() => stack.prometheus.query('up{job="invoicing"}'));
  const rates = await stack.prometheus.query(
    'sum by (method, route) (rate(invoicing_http_requests_total{job="invoicing"}[2m]))',
  );
  const routesSeen = new Set(records.map((r) => r.route)).size;
  const activeRoutes = rates.filter((sample) => sample.value > 0);
  const upText = up.map((sample) => `${sample.labels.instance}=${sample.value}`).join(', ');
  goals.push({
    name: 'Prometheus: up of each instance, request rate by route',
    met:
      up.length === INSTANCES &&
      up.every((sample) => sample.value === 1) &&
      activeRoutes.length >= routesSeen,
    detail: `up: ${upText || 'none'}; rate by route: ${activeRoutes
      .sort((a, b) => b.value - a.value)
      .map((sample) => `${sample.labels.method} ${sample.labels.route} ${sample.value.toFixed(2)}/s`)
      .join(', ')} (${activeRoutes.length} routes, the load used ${routesSeen})`,
  });

  const rules = await checkRules();
  const loaded = await stack.prometheus.ruleGroups();
  const ruleCount = loaded.reduce((sum, group) => sum + group.rules, 0);
  goals.push({
    name: 'alert rules (deploy/prometheus/alerts.yml): promtool check rules, loaded by Prometheus',
    met: rules.ok && ruleCount > 0,
    detail: `${rules.output.split('\n').filter(Boolean).slice(-1)[0] ?? ''}; Prometheus loaded ${loaded.length} groups, ${ruleCount} rules`,
  });

  const all = inWindow(loadStart, loadEnd);
  const kinds = failuresByKind(all);
  const table = renderTable(rowsOf(records, events), {
    requests: all.length,
    failed: all.filter((r) => r.outcome !== 'ok').length,
    kinds,
  });
  notes.push(
    `client calls: ${load.stats.calls}, ${load.stats.callsFailed} failed after the client's retries${
      load.stats.callFailures.size
        ? ` (${[...load.stats.callFailures.entries()].map(([k, n]) => `${n}x ${k}`).join(', ')})`
        : ''
    }`,
  );
  return { table, goals, notes };
}

/** The instances run the compiled dist/: refuse to rehearse code older than src/. */
function checkBuild(): void {
  const stamp = path.join(repoRoot, 'dist/.build-stamp');
  if (!existsSync(stamp)) throw new Error('dist/ is not built: run npm run build (npm ci does it)');
  const built = statSync(stamp).mtimeMs;
  const newest = (readdirSync(path.join(repoRoot, 'src'), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => statSync(path.join(repoRoot, 'src', file)).mtimeMs)
    .reduce((a, b) => Math.max(a, b), 0);
  if (newest > built) throw new Error('src/ changed since dist/ was built: run npm run build first');
}

async function main(): Promise<number> {
  checkBuild();
  installCleanup();
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'invoicing-rehearsal-'));
  chmodSync(runDir, 0o755); // PostgreSQL runs as `postgres` when this runs as root
  process.on('exit', () => {
    if (!flags.keep) rmSync(runDir, { recursive: true, force: true });
  });
  say(`run directory ${runDir}; logs in ${path.relative(process.cwd(), logDir)}`);
  say(`${versionOf('/usr/sbin/haproxy', ['-v'])}; ${versionOf('/usr/bin/prometheus', ['--version'])}`);

  let stack: Stack | null = null;
  try {
    stack = await bringUp(runDir);
    const { table, goals, notes } = await rehearse(stack);
    const header = [
      `Production rehearsal, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${invoicingBin.replace(/.*\/(?=bin\/)/, '')} serve x${INSTANCES} behind HAProxy`,
      machine(stack.pg.version),
    ].join('\n');
    const text = `${header}\n\n${table}\n\n${renderGoals(goals)}\n${notes.map((note) => `- note: ${note}`).join('\n')}\n`;
    process.stdout.write(`\n${text}`);
    writeFileSync(path.join(resultsDir, 'table.md'), text);
    recorder.save(path.join(resultsDir, 'requests.jsonl'));
    const missed = goals.filter((goal) => !goal.met).length;
    process.stdout.write(
      missed ? `\n${missed} of ${goals.length} goals missed\n` : `\nall ${goals.length} goals met\n`,
    );
    return missed ? 1 : 0;
  } finally {
    say('stopping everything');
    if (stack) {
      await stack.receivers.close().catch(() => {});
      await stack.prometheus.stop().catch(() => {});
      await stack.haproxy.stop().catch(() => {});
      await Promise.all(stack.instances.map((instance) => instance.stop().catch(() => {})));
      await stack.redis.stop().catch(() => {});
      await stack.pg.stop().catch(() => {});
    }
    await stopAllChildren();
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`\nrehearsal failed: ${error.stack ?? error.message}\nlogs: ${logDir}\n`);
    recorder.save(path.join(resultsDir, 'requests.jsonl'));
    stopAllChildren().finally(() => process.exit(2));
  },
);
