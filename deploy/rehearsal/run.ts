// `npm run rehearsal`: the service run as in production, through the events of a real deployment,
// under a steady load (deploy/README.md, "Production rehearsal"), a scenario of the rehearsals'
// frame (lib/scenario.ts). Its own PostgreSQL cluster and redis-server (both restarted here, so
// never the machine's shared ones), three instances of this checkout's compiled server behind
// HAProxy (deploy/haproxy/haproxy.cfg), Prometheus scraping their operations ports
// (deploy/prometheus/). It prints one table and exits 1 when a goal is missed, 2 when the
// rehearsal itself could not run.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { positiveInteger } from '../../scripts/lib/args.js';
import { invoicingBin } from '../../scripts/lib/repo.js';
import { judge } from './lib/goals.js';
import { Load } from './lib/load.js';
import { now, say, seconds } from './lib/progress.js';
import { HOLD_MS } from './lib/receivers.js';
import { Recorder } from './lib/recorder.js';
import { endedWithin, failuresByKind, renderTable, rowsOf } from './lib/report.js';
import { type EventWindow, type Rehearsed, resendFailed, runScenario, Timeline } from './lib/scenario.js';
import { restartInstance } from './lib/service.js';
import {
  allReady,
  bringUp,
  COMPANIES,
  DRAIN_MS,
  heldIdleInTransaction,
  INSTANCES,
  type Stack,
} from './lib/stack.js';

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

const WORKERS_PER_KEY = positiveInteger(flags['workers-per-key'], '--workers-per-key', 2);
const PAUSE_MS = positiveInteger(flags['pause-ms'], '--pause-ms', 250);

// The timeline, in ms.
const WARMUP = 10_000;
const BASELINE = 15_000;
const BETWEEN_RESTARTS = 5000;
const SETTLE = 10_000;
const BEFORE_HOLD = 20_000;
const HOLD = 30_000;
const AFTER_HOLD = 15_000;
/**
 * How long a write that failed for good is sent again: past the idempotency takeover, which is
 * immediate when the holder's session is known to be gone (its instance killed) and otherwise
 * comes after IDEMPOTENCY_LOCK_TIMEOUT_SECONDS, with room for the retries in between.
 */
const RESEND_FOR = 120_000;
/** The p99 during the webhook hold may be at most this many times the p99 before it. */
const HOLD_P99_RATIO = 1.5;

async function rehearse(stack: Stack): Promise<Rehearsed> {
  const runId = `rh${Date.now().toString(36)}`;
  const load = new Load({
    ...{ baseUrl: stack.haproxy.url, keys: stack.keys, workersPerKey: WORKERS_PER_KEY },
    ...{ pauseMs: PAUSE_MS, runId, recorder },
  });
  await load.prepare();
  const loadStart = now();
  load.start();
  say(
    `load: ${stack.keys.length * WORKERS_PER_KEY} workers on ${stack.keys.length} keys of ${COMPANIES} companies`,
  );
  await sleep(WARMUP + BASELINE);
  const timeline = new Timeline(load);
  const steady: EventWindow = {
    ...{ name: 'steady load', detail: `${seconds(BASELINE)} after ${seconds(WARMUP)} of warm-up` },
    ...{ start: loadStart + WARMUP, end: now(), until: now(), beforeMs: 0, afterMs: 0, baseline: true },
    callsFailed: load.stats.callsFailed,
  };
  const restart = (signal: 'SIGTERM' | 'SIGKILL', index: number) => () =>
    restartInstance(stack.haproxy, stack.instances[index]!, signal, DRAIN_MS);
  const around = (ms: number) => ({ beforeMs: ms, afterMs: ms, settleMs: ms });
  const restarts: EventWindow[] = [];
  for (const [index, instance] of stack.instances.entries()) {
    const last = index === stack.instances.length - 1;
    const window = { ...around(BETWEEN_RESTARTS), settleMs: last ? SETTLE : BETWEEN_RESTARTS };
    restarts.push(await timeline.phase(`restart ${instance.name}`, restart('SIGTERM', index), window));
  }
  const faults = [
    await timeline.phase(`SIGKILL ${stack.instances[1]!.name}`, restart('SIGKILL', 1), around(SETTLE)),
    await timeline.phase('restart Redis', () => restartAndWait(stack, stack.redis, 'down'), around(SETTLE)),
    await timeline.phase(
      'restart PostgreSQL',
      () => restartAndWait(stack, stack.pg, 'fast shutdown'),
      around(SETTLE),
    ),
  ];
  // The webhook receivers turn slow for HOLD ms, after a steady window to compare with.
  await sleep(BEFORE_HOLD);
  const hold = await timeline.phase('webhook receivers slow', () => holdReceivers(stack), {
    ...{ beforeMs: BEFORE_HOLD, afterMs: AFTER_HOLD, settleMs: AFTER_HOLD },
  });

  say('stopping the load');
  await load.stop();
  const loadEnd = now();
  const notes = await resendFailed(load.writes, { forMs: RESEND_FOR, everyMs: 5000 });
  const events = [steady, ...timeline.phases];
  const judged = await judge({
    ...{ records: recorder.records, events, restarts, faults, hold },
    ...{ holdP99Ratio: HOLD_P99_RATIO, stack, load, runId },
  });
  const all = endedWithin(recorder.records, loadStart, loadEnd);
  const table = renderTable(rowsOf(recorder.records, events), {
    ...{ requests: all.length, failed: all.filter((r) => r.outcome !== 'ok').length },
    kinds: failuresByKind(all),
  });
  notes.push(...judged.notes, load.summary());
  return { table, goals: judged.goals, notes };
}

/** Redis or PostgreSQL restarted, then every instance ready again. */
async function restartAndWait(
  stack: Stack,
  server: { restart(): Promise<{ stopMs: number; startMs: number }> },
  how: 'down' | 'fast shutdown',
): Promise<string> {
  const { stopMs, startMs } = await server.restart();
  const from = performance.now();
  await allReady(stack, 60_000);
  const again = `+${seconds(performance.now() - from)}`;
  return how === 'down'
    ? `down ${seconds(stopMs + startMs)}, instances ready again ${again}`
    : `fast shutdown ${seconds(stopMs)}, start ${seconds(startMs)}, all UP again ${again}`;
}

/** The receivers answer after HOLD_MS for HOLD ms; sessions idle in a transaction are watched. */
async function holdReceivers(stack: Stack): Promise<string> {
  const { receivers } = stack;
  let maxIdle = 0;
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

const recorder = new Recorder();
let postgresVersion = '';
runScenario<Stack>({
  title: 'rehearsal',
  resultsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'results'),
  othersResults: ['failover'],
  keep: flags.keep === true,
  recorder,
  runDirPrefix: 'invoicing-rehearsal-',
  async bringUp({ runDir, logDir, stops }) {
    say(`${versionOf('/usr/sbin/haproxy', ['-v'])}; ${versionOf('/usr/bin/prometheus', ['--version'])}`);
    const stack = await bringUp(runDir, logDir);
    postgresVersion = stack.pg.version;
    stops.push(
      () => stack.pg.stop(),
      () => stack.redis.stop(),
      async () => {
        await Promise.all(stack.instances.map((instance) => instance.stop().catch(() => {})));
      },
      () => stack.haproxy.stop(),
      () => stack.prometheus.stop(),
      () => stack.receivers.close(),
    );
    return stack;
  },
  rehearse,
  header: (startedAt, onMachine) =>
    [
      `Production rehearsal, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${invoicingBin.replace(/.*\/(?=bin\/)/, '')} serve x${INSTANCES} behind HAProxy`,
      `${onMachine}; ${postgresVersion}`,
    ].join('\n'),
});
