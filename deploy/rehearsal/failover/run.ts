// `npm run rehearsal:failover`: the loss of the database machine, rehearsed (deploy/README.md,
// "High availability"). etcd, three Patroni nodes (deploy/patroni/patroni.yml, synchronous
// replication), HAProxy sending the instances' connections to the leader
// (deploy/haproxy/postgres.cfg), pgBackRest archiving WAL to a backup host over TLS
// (deploy/pgbackrest/pgbackrest.conf and repository-host.conf, backup-host.ts),
// three instances of this checkout's compiled server behind the API's HAProxy
// (deploy/haproxy/haproxy.cfg), Redis at 127.0.0.1:6379 under a key prefix of the run's own, a
// steady load through the official TypeScript client and webhook receivers. Then: SIGKILL the
// leader's Patroni and PostgreSQL together; revoke a key; bring the old leader back (pg_rewind);
// a planned switchover; a point-in-time restore to a moment before the kill. Before the load, what
// an outsider can do to the cluster is tried (members-only.ts). Everything runs with TLS
// (deploy/tls/make-certs.sh), listens on 127.0.0.1, on ports FAILOVER_PORT_BASE (27100) to +99,
// and lives in a temporary directory removed at the end. It prints one table, writes it with the
// goals to results/failover/results.json (deploy/README.md's tables are made from that file:
// write-readme.ts), and exits 1 when a goal is missed, 2 when it could not run. A scenario of the
// rehearsals' frame (lib/scenario.ts): the phases are in phases.ts, every goal is judged in judge.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { Load } from '../lib/load.js';
import { withClient } from '../lib/postgres.js';
import { portAccepts, waitUntil } from '../lib/processes.js';
import { now, say, seconds } from '../lib/progress.js';
import { Recorder } from '../lib/recorder.js';
import { endedWithin } from '../lib/report.js';
import { type Phase, type Rehearsed, resendFailed, runScenario, Timeline } from '../lib/scenario.js';
import { crashes } from '../lib/service.js';
import { PATRONI_CONFIG, PG_BIN, runAs } from './cluster.js';
import { judgeFailover, pauseBoundMs } from './judge.js';
import {
  backupUnderLoad,
  killLeader,
  rejoinOldLeader,
  revokeKey,
  seen,
  switchoverToSync,
  tryAsOutsider,
} from './phases.js';
import { targetTime } from './pitr.js';
import { restoreAndCheck } from './pitr-check.js';
import { pauseOf, renderTable, rowOf, writesOf } from './report.js';
import { type FailoverResults, RESULTS_FILE } from './results.js';
import {
  BASE,
  bringUp,
  COMPANIES,
  type FailoverContext,
  INSTANCES,
  KEY_CACHE_TTL_MS,
  markerCounts,
  NODES,
  PAUSE_MS,
  PORTS,
  REDIS_URL,
  REJOIN_BOUND_MS,
  REVOKE_BOUND_MS,
  SETTLE,
  type Setup,
  WARMUP,
  WORKERS_PER_KEY,
} from './setup.js';

const { values: flags } = parseArgs({
  options: { keep: { type: 'boolean' }, help: { type: 'boolean' } },
});
if (flags.help) {
  process.stdout.write(
    'Usage: npm run rehearsal:failover [-- --keep]\n\n  --keep  keep the temporary directory (data directories, repository)\n\nPorts: FAILOVER_PORT_BASE (default 27100) to +99 on 127.0.0.1. Logs and the table: deploy/rehearsal/results/failover/.\n',
  );
  process.exit(0);
}

const recorder = new Recorder();
const runId = `fo${Date.now().toString(36)}`;
/** Wall-clock ms of a moment on progress.ts's clock. */
const wallOffset = Date.now() - now();
const wall = (at: number) => wallOffset + at;

async function rehearse(setup: Setup, context: FailoverContext): Promise<Rehearsed> {
  const { keys } = setup;
  const user = await runAs();
  const attempts = await tryAsOutsider(setup);
  say(`members only: ${attempts.outsiders.filter((a) => !a.refused).length} outsider attempts accepted`);
  const load = new Load({
    ...{ baseUrl: setup.apiUrl, keys, workersPerKey: WORKERS_PER_KEY },
    ...{ pauseMs: PAUSE_MS, runId, recorder },
  });
  await load.prepare();
  const firstEventId = await lastEventId(setup.superuserUrl(PORTS.pgProxy, 'invoicing'));
  const loadStart = now();
  load.start();
  say(`load: ${keys.length * WORKERS_PER_KEY} workers on ${keys.length} keys of ${COMPANIES} companies`);
  await sleep(WARMUP);
  const timeline = new Timeline(load);
  const saw = seen();
  const phase = (name: string, action: () => Promise<string>, settleMs: number) =>
    timeline.phase(name, action, { settleMs });
  await phase('steady load, incremental backup', () => backupUnderLoad(setup, user, saw, wall), 7000);
  const failover = await phase(
    'failover: SIGKILL leader (Patroni + PostgreSQL)',
    () => killLeader(setup, saw),
    SETTLE,
  );
  await phase('revoke a key after the failover', () => revokeKey(setup, saw), 3000);
  await phase(
    'old leader rejoins as a replica (pg_rewind)',
    () => rejoinOldLeader(setup, saw, context.logDir),
    5000,
  );
  const switched = await phase(
    'planned switchover (Patroni REST API)',
    () => switchoverToSync(setup),
    SETTLE,
  );
  say('stopping the load');
  await load.stop();
  const loadEnd = now();
  const notes = await resendFailed(load.writes, { forMs: 90_000, everyMs: 2000 });
  const whole: Phase = {
    ...{ name: '**whole run**', detail: `load ${seconds(loadEnd - loadStart)}` },
    ...{ start: loadStart, until: loadEnd, callsFailed: load.stats.callsFailed },
  };
  const end = await atTheEnd(setup, load, firstEventId, [...timeline.phases, whole], [failover, switched]);
  // Point-in-time recovery to the target, into a separate cluster, served by a fresh instance.
  const pitr = await restoreAndCheck(setup, context, load.writes, saw.target, wall(saw.target), user);
  const restored = [
    `PITR restore to ${targetTime(wall(saw.target))}`,
    pitr.detail,
    '',
    '',
    '',
    '',
    '',
    pitr.writesCell,
    '',
  ];
  const goals = judgeFailover({
    ...{ attempts, phases: timeline.phases, failover, switchover: switched, pitr },
    crashes: crashes.map((c) => `${c.name} (${c.exit}) at ${seconds(c.at)}`),
    records: endedWithin(recorder.records, loadStart, loadEnd),
    failoverPause: pauseOf(recorder.records, failover.start, failover.until),
    pauseBoundMs: pauseBoundMs(readFileSync(PATRONI_CONFIG, 'utf8')),
    writes: end.rows[end.rows.length - 1]!.writes,
    events: end.events,
    ...{ refusedIn: saw.refusedIn, revokeBoundMs: REVOKE_BOUND_MS, keyCacheTtlMs: KEY_CACHE_TTL_MS },
    ...{ rejoin: saw.rejoin, rejoinBoundMs: REJOIN_BOUND_MS },
    switchoverFailedAttempts: endedWithin(recorder.records, switched.start, switched.until).filter(
      (r) => r.outcome !== 'ok',
    ).length,
    callsFailedOutside: load.stats.callsFailed - timeline.phases.reduce((sum, p) => sum + p.callsFailed, 0),
    callFailures: load.stats.callFailures,
  });
  notes.push(...pitr.notes, `${load.summary()}; newLeader ${saw.newLeader?.name ?? '-'}`);
  return { table: renderTable(end.rows, [restored]), goals, notes };
}

/**
 * The database at the end (the primary now, through the PostgreSQL HAProxy): each phase's row (the
 * writes acknowledged against the rows found, the events written against those delivered; the
 * pause for `withPause`), and the events' goal input.
 */
async function atTheEnd(setup: Setup, load: Load, firstEventId: number, phases: Phase[], withPause: Phase[]) {
  const primaryUrl = setup.superuserUrl(PORTS.pgProxy, 'invoicing');
  const counts = await markerCounts(primaryUrl, runId);
  const events = await eventsDelivered(primaryUrl, firstEventId, setup);
  const { ids: delivered, deliveries } = setup.receivers.received();
  const last = phases[phases.length - 1];
  const rows = phases.map((p) => {
    const to = p === last ? Number.POSITIVE_INFINITY : p.until;
    const inside = events.filter(
      (e) => e.created_at.getTime() >= wall(p.start) && e.created_at.getTime() < wall(to),
    );
    const eventCount = {
      written: inside.length,
      delivered: inside.filter((e) => delivered.has(e.public_id)).length,
    };
    return rowOf(
      p,
      recorder.records,
      writesOf(load.writes, counts, p.start, to),
      eventCount,
      withPause.includes(p),
    );
  });
  const created = load.writes.filter((w) => w.outcome === 'created');
  return {
    rows,
    events: {
      written: events.length,
      undelivered: events.filter((e) => !delivered.has(e.public_id)).length,
      deliveries,
      withoutEvent: created
        .filter((w) => !events.some((e) => e.payload.includes(`"${w.marker}"`)))
        .map((w) => w.marker),
    },
  };
}

async function lastEventId(url: string): Promise<number> {
  return withClient(url, async (client) =>
    Number((await client.query('select coalesce(max(id), 0) as id from webhook_events')).rows[0].id),
  );
}

/** The events written since `firstEventId`, once every one was delivered (or after 90 s). */
async function eventsDelivered(url: string, firstEventId: number, setup: Setup) {
  const eventsOf = () =>
    withClient(
      url,
      async (client) =>
        (
          await client.query<{ public_id: string; created_at: Date; payload: string }>(
            'select public_id, created_at, payload from webhook_events where id > $1 and company_id = any($2::int[])',
            [firstEventId, setup.companyIds],
          )
        ).rows,
    );
  return waitUntil(
    'every event written delivered at least once',
    async () => {
      const rows = await eventsOf();
      const { ids } = setup.receivers.received();
      return rows.every((row) => ids.has(row.public_id)) ? rows : false;
    },
    90_000,
    1000,
  ).catch(eventsOf);
}

/** The versions of what the run starts, as each program prints it. */
function components(): string {
  const first = (command: string, args: string[]) => {
    try {
      const output = execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return output.split('\n')[0]!.trim();
    } catch {
      return `${command}: unknown`;
    }
  };
  return [
    first(path.join(PG_BIN, 'postgres'), ['--version']),
    first('patroni', ['--version']),
    first('etcd', ['--version']),
    first('pgbackrest', ['version']),
    first(process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy', ['-v']).replace(/ - https?:.*$/, ''),
    first('openssl', ['version']),
  ].join(', ');
}

/** Any postmaster still running from the run's data directories ends now (also on Ctrl-C). */
function killPostmasters(runDir: string): void {
  if (!existsSync(runDir)) return;
  for (const entry of readdirSync(runDir)) {
    const file = path.join(runDir, entry, 'data', 'postmaster.pid');
    if (!existsSync(file)) continue;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    try {
      // Only a postmaster of this run's directory (a stale file's pid may be another process now).
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (pid > 0 && cmdline.includes(runDir)) process.kill(pid, 'SIGQUIT');
    } catch {
      // not running
    }
  }
}

async function cleanRedis(): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${runId}:*`, 'COUNT', 500);
      cursor = next;
      if (found.length) await redis.del(...found);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

runScenario<Setup>({
  title: 'failover rehearsal',
  resultsDir: path.join(repoRoot, 'deploy/rehearsal/results/failover'),
  keep: flags.keep === true,
  recorder,
  runDirPrefix: 'invoicing-failover-',
  async check() {
    const busy: number[] = [];
    for (const port of [
      ...[PORTS.etcdClient, PORTS.etcdPeer, PORTS.pgProxy, PORTS.apiProxy, PORTS.restoredPg],
      ...[PORTS.backupHost, PORTS.nodeServer(0), PORTS.nodeServer(1), PORTS.nodeServer(2)],
    ])
      if (await portAccepts(port, 300)) busy.push(port);
    if (busy.length)
      throw new Error(`ports in use: ${busy.join(', ')} (set FAILOVER_PORT_BASE to another range)`);
    say(`ports ${BASE}-${BASE + 99}`);
  },
  bringUp: (context) => bringUp({ ...context, runId }),
  rehearse: (setup, context) => rehearse(setup, { ...context, runId }),
  header: (startedAt, onMachine) =>
    `Failover rehearsal, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC: Patroni x${NODES} (synchronous_mode) on etcd, HAProxy /primary, pgBackRest on a backup host, TLS everywhere; bin/invoicing serve x${INSTANCES} behind HAProxy\n${onMachine}; ${PG_BIN}`,
  written(run) {
    const results: FailoverResults = {
      ...{ startedAt: run.startedAt.toISOString(), machine: run.onMachine, components: components() },
      ...{ table: run.table, goals: run.goals, notes: run.notes },
      ...{ wallMs: Date.now() - run.startedAt.getTime(), exitCode: run.exitCode },
    };
    writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    return `; ${path.relative(process.cwd(), RESULTS_FILE)} written (npm run rehearsal:failover:readme puts it in deploy/README.md)`;
  },
  async cleanup(runDir) {
    killPostmasters(runDir);
    await cleanRedis().catch(() => {});
  },
});
