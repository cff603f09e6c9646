// The rehearsals' one frame (issue 42): a scenario brings up its machines, runs its phases as
// events with time windows under the load, resends what the client gave up on and judges its goals
// as data; the frame does the rest the same way for every scenario: the results directory and the
// run's temporary directory, the header (the machine, the load average), the table and the goals
// printed and written (table.md, results.json), the exit code (0 every goal met, 1 one missed, 2
// the run could not be carried out) and the stopping of everything, also on Ctrl-C.
// `npm run rehearsal` (../run.ts) and `npm run rehearsal:failover` (../failover/run.ts) are
// scenarios of it.
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
import { checkBuild } from './instances.js';
import type { TrackedWrite } from './load.js';
import { installCleanup, stopAllChildren } from './processes.js';
import { now, say, seconds } from './progress.js';
import type { Recorder } from './recorder.js';
import { type Goal, renderGoals } from './report.js';

/** What a phase saw: its action's outcome and its window on progress.ts's clock. */
export interface Phase {
  name: string;
  /** What happened, e.g. "exit 5.3 s, ready 4.1 s", or "FAILED: ..." */
  detail: string;
  start: number;
  /** Where the phase's count of requests stops: the next phase's start, or the end of the load. */
  until: number;
  /** Client calls that gave up after the client's retries, during the phase. */
  callsFailed: number;
  /** The action could not be carried out (its detail says why). */
  failed?: boolean;
}

/** A phase with its latency windows: before it, during its action (start to end), after it. */
export interface EventWindow extends Phase {
  end: number;
  beforeMs: number;
  afterMs: number;
  /** The baseline row has a single window. */
  baseline?: boolean;
}

/** The phases of a run, in order; `callsFailed` counts from the load's own statistics. */
export class Timeline {
  readonly phases: EventWindow[] = [];
  constructor(private readonly load: { stats: { callsFailed: number } }) {}

  /** Runs `action` as a phase, then lets the load run `settleMs` (the after window). */
  async phase(
    name: string,
    action: () => Promise<string>,
    options: { settleMs: number; beforeMs?: number; afterMs?: number },
  ): Promise<EventWindow> {
    say(`${name}...`);
    const start = now();
    const failedBefore = this.load.stats.callsFailed;
    let detail: string;
    let failed = false;
    try {
      detail = await action();
    } catch (error) {
      // The run goes on; the table and the goals say so.
      failed = true;
      detail = `FAILED: ${(error as Error).message}`;
    }
    const end = now();
    say(`${name}: ${detail}`);
    await sleep(options.settleMs);
    const phase: EventWindow = {
      name,
      detail,
      failed,
      start,
      end,
      until: now(),
      beforeMs: options.beforeMs ?? 0,
      afterMs: options.afterMs ?? 0,
      callsFailed: this.load.stats.callsFailed - failedBefore,
    };
    this.phases.push(phase);
    return phase;
  }
}

/**
 * A write whose call failed for good is sent again, same key and bytes, as a partner's job would,
 * until it is accepted or `forMs` passed (a claim left by a request that died is taken over at once
 * when its session is known to be gone, otherwise after the lock timeout). The note says how it went.
 */
export async function resendFailed(
  writes: TrackedWrite[],
  options: { forMs: number; everyMs: number },
): Promise<string[]> {
  const failed = writes.filter((write) => write.outcome === 'failed');
  const took = await Promise.all(
    failed.map(async (write) => {
      const started = performance.now();
      for (;;) {
        try {
          await write.resend();
          write.outcome = 'created';
          write.ackedAt = now();
          return performance.now() - started;
        } catch (error) {
          write.error = (error as Error).message;
          if (performance.now() - started > options.forMs) return null;
          await sleep(options.everyMs);
        }
      }
    }),
  );
  if (!failed.length) return [];
  return [
    `${failed.length} writes failed for good during the run (the client gave up) and were sent again: ${took
      .map((ms, index) =>
        ms === null
          ? `${failed[index]!.marker} still refused (${failed[index]!.error})`
          : `${failed[index]!.marker} accepted after ${seconds(ms)}`,
      )
      .join(', ')}`,
  ];
}

/** CPU, cores, memory, kernel, the load average at the start and Node. */
export function machine(): string {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const cpu = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  return `${cpu}, ${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, ${os.type()} ${os.release()}; load average at the start ${load}; Node ${process.version}`;
}

/** What a scenario's `rehearse` returns. */
export interface Rehearsed {
  table: string;
  goals: Goal[];
  notes: string[];
}

/** What the frame hands the scenario: its run's directories and what to stop at the end. */
export interface RunContext {
  runDir: string;
  logDir: string;
  /** Stopped in reverse order at the end. */
  stops: (() => Promise<void>)[];
}

export interface Scenario<Setup> {
  /** "rehearsal", "failover rehearsal": in messages. */
  title: string;
  resultsDir: string;
  /** Entries of resultsDir that are another scenario's (the failover's results under the rolling's). */
  othersResults?: string[];
  /** Keep the temporary directory (--keep). */
  keep: boolean;
  recorder: Recorder;
  /** Checks before anything starts (ports free...). */
  check?(): Promise<void>;
  /** The run directory's prefix under the system's temporary directory. */
  runDirPrefix: string;
  header(startedAt: Date, onMachine: string): string;
  bringUp(context: RunContext): Promise<Setup>;
  rehearse(setup: Setup, context: RunContext): Promise<Rehearsed>;
  /** With the verdict: more to write (the failover's results.json). */
  written?(run: Rehearsed & { startedAt: Date; onMachine: string; exitCode: number }): string;
  /** Last, also on exit: what must not outlive the run (postmasters...). */
  cleanup?(runDir: string): void | Promise<void>;
}

/** Runs `scenario` and exits the process with its code. */
export function runScenario<Setup>(scenario: Scenario<Setup>): void {
  const logDir = path.join(scenario.resultsDir, 'logs');
  let runDir = '';
  async function main(): Promise<number> {
    installCleanup();
    for (const entry of existsSync(scenario.resultsDir) ? readdirSync(scenario.resultsDir) : [])
      if (!scenario.othersResults?.includes(entry))
        rmSync(path.join(scenario.resultsDir, entry), { recursive: true, force: true });
    mkdirSync(logDir, { recursive: true });
    checkBuild();
    await scenario.check?.();
    runDir = mkdtempSync(path.join(os.tmpdir(), scenario.runDirPrefix));
    chmodSync(runDir, 0o755); // PostgreSQL runs as `postgres` when this runs as root
    process.on('exit', () => {
      void scenario.cleanup?.(runDir);
      if (!scenario.keep) rmSync(runDir, { recursive: true, force: true });
    });
    say(`run directory ${runDir}; logs in ${path.relative(process.cwd(), logDir)}`);
    const startedAt = new Date();
    const onMachine = machine();
    const context: RunContext = { runDir, logDir, stops: [] };
    try {
      const setup = await scenario.bringUp(context);
      const run = await scenario.rehearse(setup, context);
      const text = `${scenario.header(startedAt, onMachine)}\n\n${run.table}\n\n${renderGoals(run.goals)}\n${run.notes
        .map((note) => `- note: ${note}`)
        .join('\n')}\n`;
      process.stdout.write(`\n${text}`);
      writeFileSync(path.join(scenario.resultsDir, 'table.md'), text);
      const missed = run.goals.filter((goal) => !goal.met).length;
      const more = scenario.written?.({ ...run, startedAt, onMachine, exitCode: missed ? 1 : 0 }) ?? '';
      process.stdout.write(
        `${missed ? `\n${missed} of ${run.goals.length} goals missed` : `\nall ${run.goals.length} goals met`}${more}\n`,
      );
      return missed ? 1 : 0;
    } finally {
      scenario.recorder.save(path.join(scenario.resultsDir, 'requests.jsonl'));
      say('stopping everything');
      for (const stop of context.stops.reverse()) await stop().catch(() => {});
      await stopAllChildren();
      await scenario.cleanup?.(runDir);
    }
  }
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`\n${scenario.title} failed: ${error.stack ?? error.message}\nlogs: ${logDir}\n`);
      stopAllChildren().finally(() => process.exit(2));
    },
  );
}

/** A goal as data: a pure function of what the run saw, its verdict and what it saw. */
export type GoalOf<Seen> = (seen: Seen) => Goal;

/** Every goal of a scenario judged on what its run saw, in order: the one judging function. */
export function judgeGoals<Seen>(goals: readonly GoalOf<Seen>[], seen: Seen): Goal[] {
  return goals.map((goal) => {
    try {
      return goal(seen);
    } catch (error) {
      return { name: goal.name || 'a goal', met: false, detail: `not judged: ${(error as Error).message}` };
    }
  });
}
