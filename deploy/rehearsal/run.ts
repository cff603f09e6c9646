// `npm run rehearsal`: the service run as in production, through the events of a real deployment,
// under a steady load (deploy/README.md, "Production rehearsal"). Its own PostgreSQL cluster and
// redis-server (both restarted here, so never the machine's shared ones), three instances of this
// checkout's compiled server behind HAProxy (deploy/haproxy/haproxy.cfg), Prometheus scraping
// their operations ports (deploy/prometheus/). It prints one table and exits 1 when a goal is
// missed, 2 when the rehearsal itself could not run.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { positiveInteger } from '../../scripts/lib/args.js';
import { invoicingBin } from '../../scripts/lib/repo.js';
import { judge } from './lib/goals.js';
import { checkBuild } from './lib/instances.js';
import { Load } from './lib/load.js';
import { installCleanup, stopAllChildren } from './lib/processes.js';
import { now, say, seconds } from './lib/progress.js';
import { HOLD_MS } from './lib/receivers.js';
import { Recorder } from './lib/recorder.js';
import {
  type EventWindow,
  endedWithin,
  failuresByKind,
  type Goal,
  renderGoals,
  renderTable,
  rowsOf,
} from './lib/report.js';
import {
  allReady,
  bringUp,
  COMPANIES,
  heldIdleInTransaction,
  INSTANCES,
  restartInstance,
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

const resultsDir = path.join(path.dirname(new URL(import.meta.url).pathname), 'results');
const logDir = path.join(resultsDir, 'logs');
const recorder = new Recorder();

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

/** Runs `action` as an event, then lets the load run `settleMs` (the after window). */
async function event(
  name: string,
  action: () => Promise<string>,
  options: { beforeMs: number; afterMs: number; settleMs: number },
): Promise<EventWindow> {
  say(`${name}...`);
  const start = now();
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
  const end = now();
  say(`${name}: ${detail}`);
  await sleep(options.settleMs);
  return {
    name,
    detail,
    failed,
    start,
    end,
    until: now(),
    beforeMs: options.beforeMs,
    afterMs: options.afterMs,
  };
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
  const loadStart = now();
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
      end: now(),
      until: now(),
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
  const loadEnd = now();

  // A write whose call failed for good is sent again, same key and bytes, as a partner's job
  // would, until it is accepted: a claim left by a request that died is taken over at once when
  // its database session is known to be gone, otherwise after IDEMPOTENCY_LOCK_TIMEOUT_SECONDS
  // (bounded at RESEND_FOR).
  const failedWrites = load.writes.filter((write) => write.outcome === 'failed');
  const resent = await Promise.all(
    failedWrites.map(async (write) => {
      const started = performance.now();
      for (;;) {
        try {
          await write.resend();
          write.outcome = 'created';
          return performance.now() - started;
        } catch (error) {
          write.error = (error as Error).message;
          if (performance.now() - started > RESEND_FOR) return null;
          await sleep(5000);
        }
      }
    }),
  );
  if (failedWrites.length > 0)
    notes.push(
      `${failedWrites.length} writes failed for good during the run (the client gave up) and were sent again: ${resent
        .map((ms, index) =>
          ms === null
            ? `${failedWrites[index]!.marker} still refused (${failedWrites[index]!.error})`
            : `accepted after ${seconds(ms)}`,
        )
        .join(', ')}`,
    );

  const { goals, notes: judged } = await judge({
    records: recorder.records,
    events,
    restarts,
    faults,
    hold,
    holdP99Ratio: HOLD_P99_RATIO,
    stack,
    load,
    runId,
  });
  notes.push(...judged);
  const records = recorder.records;
  const all = endedWithin(records, loadStart, loadEnd);
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

async function main(): Promise<number> {
  installCleanup();
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  checkBuild();
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'invoicing-rehearsal-'));
  chmodSync(runDir, 0o755); // PostgreSQL runs as `postgres` when this runs as root
  process.on('exit', () => {
    if (!flags.keep) rmSync(runDir, { recursive: true, force: true });
  });
  say(`run directory ${runDir}; logs in ${path.relative(process.cwd(), logDir)}`);
  say(`${versionOf('/usr/sbin/haproxy', ['-v'])}; ${versionOf('/usr/bin/prometheus', ['--version'])}`);

  let stack: Stack | null = null;
  try {
    stack = await bringUp(runDir, logDir);
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
    try {
      recorder.save(path.join(resultsDir, 'requests.jsonl'));
    } catch {
      // nothing was recorded, or the results directory is not there
    }
    stopAllChildren().finally(() => process.exit(2));
  },
);
