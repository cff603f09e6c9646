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
// write-readme.ts), and exits 1 when a goal is missed, 2 when it could not run. Every goal is
// judged in judge.ts.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { repoRoot } from '../../../scripts/lib/repo.js';
import { invoicing } from '../lib/checks.js';
import { checkBuild } from '../lib/instances.js';
import { Load } from '../lib/load.js';
import { withClient } from '../lib/postgres.js';
import { installCleanup, portAccepts, stopAllChildren, waitUntil } from '../lib/processes.js';
import { now, say, seconds } from '../lib/progress.js';
import { Recorder } from '../lib/recorder.js';
import { endedWithin, type Goal, renderGoals } from '../lib/report.js';
import {
  healthy,
  leaderOf,
  members,
  PATRONI_CONFIG,
  type PatroniNode,
  PG_BIN,
  pgbackrest,
  runAs,
  switchover,
} from './cluster.js';
import {
  type Attempt,
  judgeEvents,
  judgeMembersOnly,
  judgeNoCallGaveUp,
  judgePause,
  judgePhases,
  judgeRejoin,
  judgeRetryable,
  judgeRevoke,
  judgeSwitchover,
  judgeWrites,
  pauseBoundMs,
  type Rejoin,
} from './judge.js';
import { etcdMember, etcdOutsiders, patroniOutsiders, postgresAttempts } from './members-only.js';
import { targetTime } from './pitr.js';
import { restoreAndCheck } from './pitr-check.js';
import { type Phase, pauseOf, renderTable, rowOf, writesOf } from './report.js';
import { type FailoverResults, RESULTS_FILE } from './results.js';
import {
  BASE,
  bringUp,
  COMPANIES,
  INSTANCES,
  KEY_CACHE_TTL_MS,
  markerCounts,
  NODES,
  PAUSE_MS,
  PORTS,
  REDIS_URL,
  REJOIN_BOUND_MS,
  REVOKE_BOUND_MS,
  type RunContext,
  SETTLE,
  type Setup,
  status,
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

const resultsDir = path.join(repoRoot, 'deploy/rehearsal/results/failover');
const logDir = path.join(resultsDir, 'logs');
const recorder = new Recorder();
const runId = `fo${Date.now().toString(36)}`;
/** Wall-clock ms of a moment on progress.ts's clock. */
const wallOffset = Date.now() - now();
const wall = (at: number) => wallOffset + at;
const context: RunContext = { runId, logDir, stops: [], crashes: [] };
const { stops, crashes } = context;

function machine(): string {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const cpu = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  return `${cpu}, ${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, ${os.type()} ${os.release()}; load average at the start ${load}; Node ${process.version}`;
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

/** Issue 38: what someone who reaches the ports but holds no key of the cluster's CA can do. */
async function membersOnly(setup: Setup): Promise<Goal> {
  const leader = await leaderOf(setup.nodes);
  if (!leader) throw new Error('no leader to try the cluster on');
  const outsiders: Attempt[] = [];
  const insiders: Attempt[] = [];
  outsiders.push(...(await etcdOutsiders(setup.etcd, setup.certificates.ca)));
  insiders.push(await etcdMember(setup.etcd, leader));
  const postgres = await postgresAttempts({
    password: setup.superuserPassword,
    proxyPort: PORTS.pgProxy,
    leader,
    ca: setup.certificates.ca,
  });
  outsiders.push(...postgres.outsiders);
  insiders.push(...postgres.members);
  outsiders.push(...(await patroniOutsiders(leader, setup.restapiPassword)));
  const goal = judgeMembersOnly(outsiders, insiders);
  say(`members only: ${goal.met ? 'every outsider refused' : `MISSED: ${goal.detail}`}`);
  return goal;
}

async function rehearse(setup: Setup) {
  const { receivers } = setup;
  const { nodes, keys } = setup;
  const user = await runAs();
  const goals: Goal[] = [];
  const notes: string[] = [];
  const phases: Phase[] = [];
  const steer = await membersOnly(setup);
  const load = new Load({
    baseUrl: setup.apiUrl,
    keys,
    workersPerKey: WORKERS_PER_KEY,
    pauseMs: PAUSE_MS,
    runId,
    recorder,
  });
  await load.prepare();
  const firstEventId = await withClient(setup.superuserUrl(PORTS.pgProxy, 'invoicing'), async (client) =>
    Number((await client.query('select coalesce(max(id), 0) as id from webhook_events')).rows[0].id),
  );
  const loadStart = now();
  load.start();
  say(`load: ${keys.length * WORKERS_PER_KEY} workers on ${keys.length} keys of ${COMPANIES} companies`);
  await sleep(WARMUP);

  /** Runs a phase's action; the load goes on `settleMs` after it. */
  async function phase(name: string, action: () => Promise<string>, settleMs: number): Promise<Phase> {
    say(`${name}...`);
    const start = now();
    const failedBefore = load.stats.callsFailed;
    let detail: string;
    let failed = false;
    try {
      detail = await action();
    } catch (error) {
      failed = true;
      detail = `FAILED: ${(error as Error).message}`;
    }
    say(`${name}: ${detail}`);
    await sleep(settleMs);
    const done: Phase = {
      name,
      detail,
      start,
      until: now(),
      callsFailed: load.stats.callsFailed - failedBefore,
      failed,
    };
    phases.push(done);
    return done;
  }

  let target = 0;
  await phase(
    'steady load, incremental backup',
    async () => {
      const started = performance.now();
      const leader = (await leaderOf(nodes))!;
      // On the backup host, as its cron line runs it; it reads the leader through its pgbackrest server.
      await pgbackrest(user, setup.backupHost, ['--type=incr', 'backup']);
      const took = performance.now() - started;
      await sleep(3000);
      target = now();
      return `pgBackRest incremental backup of ${leader.name} on the backup host under load in ${seconds(took)}; PITR target ${targetTime(wall(target))} 3 s after it`;
    },
    7000,
  );

  let oldLeader: PatroniNode | null = null;
  let newLeader: PatroniNode | null = null;
  const failover = await phase(
    'failover: SIGKILL leader (Patroni + PostgreSQL)',
    async () => {
      oldLeader = await leaderOf(nodes);
      if (!oldLeader) throw new Error('no leader before the kill');
      const killed = now();
      const pids = await oldLeader.killMachine();
      const survivors = nodes.filter((node) => node !== oldLeader);
      const leader = await waitUntil('a new leader (/primary 200)', () => leaderOf(survivors), 90_000, 100);
      newLeader = leader;
      const promoted = now();
      const proxy = setup.pgProxy;
      await proxy.waitForOnly(leader.name, 30_000);
      return `${oldLeader.name} killed (${pids.length} processes); ${leader.name} leader +${seconds(promoted - killed)}, HAProxy sends to it +${seconds(now() - killed)}`;
    },
    SETTLE,
  );

  let refusedIn = Number.NaN;
  const rejoin: Rejoin = { role: null, state: null, ms: 0, log: '' };
  await phase(
    'revoke a key after the failover',
    async () => {
      const { revocable, instances } = setup;
      const urls = instances.map((instance) => `http://127.0.0.1:${instance.port}`);
      // Every instance has the key in its cache first (accepted), so only the notification can
      // make it refuse the key within the bound.
      for (const url of urls)
        await waitUntil(
          `key accepted by ${url}`,
          async () => (await status(url, revocable.key)) === 200,
          30_000,
          200,
        );
      await invoicing(setup.cliEnv, ['keys', 'revoke', String(revocable.id)]);
      const revoked = now();
      // Each instance is asked again and again; what counts is when the first request it refused
      // was sent: from then on it refuses the key (on a busy machine a request's own answer may
      // take longer than the bound, which says nothing of when the instance learnt of the change).
      const refusedAt = await Promise.all(
        urls.map((url) =>
          waitUntil(
            `${url} refuses the revoked key`,
            async () => {
              const sent = now();
              return (await status(url, revocable.key)) === 401 ? sent : false;
            },
            10_000,
            25,
          ).catch(() => Number.NaN),
        ),
      );
      refusedIn = Math.max(...refusedAt.map((at) => at - revoked));
      return `refused by ${refusedAt.filter((at) => !Number.isNaN(at)).length} of ${urls.length} instances: the last one refused a request sent ${
        Number.isNaN(refusedIn) ? 'never (10 s)' : `${Math.max(0, refusedIn).toFixed(0)} ms`
      } after bin/invoicing keys revoke returned`;
    },
    3000,
  );

  await phase(
    'old leader rejoins as a replica (pg_rewind)',
    async () => {
      const node = oldLeader as PatroniNode | null;
      if (!node) throw new Error('no old leader');
      const logFile = path.join(logDir, `${node.name}.log`);
      const logFrom = readFileSync(logFile).length;
      const started = now();
      await node.start();
      const seen = await waitUntil('3 nodes running again', () => healthy(nodes), REJOIN_BOUND_MS, 500);
      rejoin.ms = now() - started;
      rejoin.log = readFileSync(logFile).subarray(logFrom).toString('utf8');
      const me = seen.find((m) => m.name === node.name);
      rejoin.role = me?.role ?? null;
      rejoin.state = me?.state ?? null;
      rejoin.timeline = me?.timeline;
      rejoin.leaderTimeline = seen.find((m) => m.role === 'leader')?.timeline;
      return judgeRejoin(rejoin, REJOIN_BOUND_MS).detail;
    },
    5000,
  );

  const switched = await phase(
    'planned switchover (Patroni REST API)',
    async () => {
      const seen = await members(nodes);
      const leaderName = seen.find((m) => m.role === 'leader')?.name;
      const candidate = seen.find((m) => m.role === 'sync_standby')?.name;
      const leader = nodes.find((node) => node.name === leaderName);
      if (!leader || !candidate) throw new Error(`no leader or synchronous standby: ${JSON.stringify(seen)}`);
      const started = now();
      await switchover(leader, candidate, setup.restapiPassword);
      const next = nodes.find((node) => node.name === candidate)!;
      await waitUntil(`${candidate} leads`, () => next.isPrimary(), 60_000, 100);
      const proxy = setup.pgProxy;
      await proxy.waitForOnly(candidate, 30_000);
      return `${leader.name} -> ${candidate} (the synchronous standby): HAProxy sends to it +${seconds(now() - started)}`;
    },
    SETTLE,
  );

  say('stopping the load');
  await load.stop();
  const loadEnd = now();

  // A write whose call failed for good is sent again, same key and bytes, as a partner's job would.
  const failedWrites = load.writes.filter((write) => write.outcome === 'failed');
  for (const write of failedWrites) {
    const started = performance.now();
    while (performance.now() - started < 90_000) {
      try {
        await write.resend();
        write.outcome = 'created';
        write.ackedAt = now();
        break;
      } catch (error) {
        write.error = (error as Error).message;
        await sleep(2000);
      }
    }
  }
  if (failedWrites.length)
    notes.push(
      `${failedWrites.length} writes failed for good during the run (the client gave up) and were sent again: ${failedWrites
        .map((w) => `${w.marker} ${w.outcome === 'created' ? 'accepted' : `still refused (${w.error})`}`)
        .join(', ')}`,
    );

  // The database at the end: the primary now, through the PostgreSQL HAProxy.
  const primaryUrl = setup.superuserUrl(PORTS.pgProxy, 'invoicing');
  const counts = await markerCounts(primaryUrl, runId);
  const eventsOf = async () =>
    withClient(
      primaryUrl,
      async (client) =>
        (
          await client.query<{ public_id: string; created_at: Date; payload: string }>(
            'select public_id, created_at, payload from webhook_events where id > $1 and company_id = any($2::int[])',
            [firstEventId, setup.companyIds],
          )
        ).rows,
    );
  const events = await waitUntil(
    'every event written delivered at least once',
    async () => {
      const rows = await eventsOf();
      const { ids } = receivers.received();
      return rows.every((row) => ids.has(row.public_id)) ? rows : false;
    },
    90_000,
    1000,
  ).catch(eventsOf);
  const delivered = receivers.received().ids;
  const eventCount = (from: number, to: number) => {
    const inside = events.filter(
      (e) => e.created_at.getTime() >= wall(from) && e.created_at.getTime() < wall(to),
    );
    return { written: inside.length, delivered: inside.filter((e) => delivered.has(e.public_id)).length };
  };

  const allPhase: Phase = {
    name: '**whole run**',
    detail: `load ${seconds(loadEnd - loadStart)}`,
    start: loadStart,
    until: loadEnd,
    callsFailed: load.stats.callsFailed,
  };
  const rows = [...phases, allPhase].map((p) =>
    rowOf(
      p,
      recorder.records,
      writesOf(load.writes, counts, p.start, p === allPhase ? Number.POSITIVE_INFINITY : p.until),
      eventCount(p.start, p === allPhase ? Number.POSITIVE_INFINITY : p.until),
      p === failover || p === switched,
    ),
  );

  // Point-in-time recovery to the target, into a separate cluster, served by a fresh instance.
  const pitr = await restoreAndCheck(setup, context, load.writes, target, wall(target), user);
  const extra = [
    [`PITR restore to ${targetTime(wall(target))}`, pitr.detail, '', '', '', '', '', pitr.writesCell, ''],
  ];
  const table = renderTable(rows, extra);

  // Goals, each judged in judge.ts.
  goals.push(steer);
  goals.push(judgePhases(phases, crashes));
  goals.push(
    judgeRetryable(recorder.records.filter((r) => r.at + r.ms >= loadStart && r.at + r.ms < loadEnd)),
  );
  goals.push(
    judgePause(
      pauseOf(recorder.records, failover.start, failover.until),
      failover.callsFailed,
      pauseBoundMs(readFileSync(PATRONI_CONFIG, 'utf8')),
    ),
  );
  goals.push(judgeWrites(rows[rows.length - 1]!.writes));
  const createdMarkers = load.writes.filter((w) => w.outcome === 'created').map((w) => w.marker);
  goals.push(
    judgeEvents({
      written: events.length,
      undelivered: events.filter((e) => !delivered.has(e.public_id)).length,
      deliveries: receivers.received().deliveries,
      withoutEvent: createdMarkers.filter((marker) => !events.some((e) => e.payload.includes(`"${marker}"`))),
    }),
  );
  goals.push(judgeRevoke(refusedIn, REVOKE_BOUND_MS, KEY_CACHE_TTL_MS));
  goals.push(judgeRejoin(rejoin, REJOIN_BOUND_MS));
  goals.push(
    judgeSwitchover(
      switched,
      endedWithin(recorder.records, switched.start, switched.until).filter((r) => r.outcome !== 'ok').length,
    ),
  );
  // Calls that gave up outside every phase (the warm-up, the tail before the load stopped) count too.
  const inPhases = phases.reduce((sum, p) => sum + p.callsFailed, 0);
  const outside = load.stats.callsFailed - inPhases;
  goals.push(
    judgeNoCallGaveUp(
      outside > 0
        ? [...phases, { name: 'outside the phases', detail: '', start: 0, until: 0, callsFailed: outside }]
        : phases,
      load.stats.callFailures,
    ),
  );
  goals.push({
    name: 'PITR: exactly the writes acknowledged before the target, none after; the API serves it with the same keys',
    met: pitr.met,
    detail: pitr.goal,
  });
  notes.push(...pitr.notes);
  notes.push(
    `client calls: ${load.stats.calls}, ${load.stats.callsFailed} failed after the client's retries${
      load.stats.callFailures.size
        ? ` (${[...load.stats.callFailures.entries()].map(([k, n]) => `${n}x ${k}`).join(', ')})`
        : ''
    }; newLeader ${(newLeader as PatroniNode | null)?.name ?? '-'}`,
  );
  return { table, goals, notes };
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

async function main(): Promise<number> {
  installCleanup();
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  checkBuild();
  const busy: number[] = [];
  for (const port of [
    ...[PORTS.etcdClient, PORTS.etcdPeer, PORTS.pgProxy, PORTS.apiProxy, PORTS.restoredPg],
    ...[PORTS.backupHost, PORTS.nodeServer(0), PORTS.nodeServer(1), PORTS.nodeServer(2)],
  ])
    if (await portAccepts(port, 300)) busy.push(port);
  if (busy.length)
    throw new Error(`ports in use: ${busy.join(', ')} (set FAILOVER_PORT_BASE to another range)`);
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'invoicing-failover-'));
  chmodSync(runDir, 0o755);
  process.on('exit', () => {
    killPostmasters(runDir);
    if (!flags.keep) rmSync(runDir, { recursive: true, force: true });
  });
  say(`run directory ${runDir}; ports ${BASE}-${BASE + 99}; logs in ${path.relative(process.cwd(), logDir)}`);
  const startedAt = new Date();
  const onMachine = machine();
  const header = `Failover rehearsal, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC: Patroni x${NODES} (synchronous_mode) on etcd, HAProxy /primary, pgBackRest, TLS everywhere; bin/invoicing serve x${INSTANCES} behind HAProxy\n${onMachine}; ${PG_BIN}`;
  try {
    const setup = await bringUp(runDir, context);
    const { table, goals, notes } = await rehearse(setup);
    const text = `${header}\n\n${table}\n\n${renderGoals(goals)}\n${notes.map((note) => `- note: ${note}`).join('\n')}\n`;
    process.stdout.write(`\n${text}`);
    writeFileSync(path.join(resultsDir, 'table.md'), text);
    const missed = goals.filter((goal) => !goal.met).length;
    const results: FailoverResults = {
      startedAt: startedAt.toISOString(),
      machine: onMachine,
      components: components(),
      table,
      goals,
      notes,
      wallMs: Date.now() - startedAt.getTime(),
      exitCode: missed ? 1 : 0,
    };
    writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(
      `${missed ? `\n${missed} of ${goals.length} goals missed` : `\nall ${goals.length} goals met`}; ${path.relative(process.cwd(), RESULTS_FILE)} written (npm run rehearsal:failover:readme puts it in deploy/README.md)\n`,
    );
    return missed ? 1 : 0;
  } finally {
    recorder.save(path.join(resultsDir, 'requests.jsonl'));
    say('stopping everything');
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await stopAllChildren();
    killPostmasters(runDir);
    await cleanRedis().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`\nfailover rehearsal failed: ${error.stack ?? error.message}\nlogs: ${logDir}\n`);
    stopAllChildren().finally(() => process.exit(2));
  },
);
