// The failover rehearsal's goals, each judged by a pure function of what the run saw (records,
// counts, times, log lines, probe outcomes), so that test/deploy/failover-judge.unit.test.ts can
// show every goal missed as well as met; FAILOVER_GOALS lists them as data, judged by the frame's
// judgeGoals (lib/scenario.ts). run.ts gathers the inputs; nothing here touches a process.
import { seconds } from '../lib/progress.js';
import { isRetryable, type RequestRecord } from '../lib/recorder.js';
import type { Goal } from '../lib/report.js';
import { type GoalOf, judgeGoals, type Phase } from '../lib/scenario.js';
import type { Pause, WriteCount } from './report.js';

/**
 * What the pause in writes may take beyond Patroni's own bound (ttl + loop_wait): the promotion
 * (up to 2 s), HAProxy's next check of the new leader (1 s) and the clients' next retry after a
 * 503 (Retry-After: 2 s).
 */
export const PAUSE_MARGIN_MS = 5000;

/** ttl and loop_wait of deploy/patroni/patroni.yml (each appears once, as `name: N`). */
export function patroniTimings(yaml: string): { ttlS: number; loopWaitS: number } {
  const read = (name: string) => {
    const matches = [...yaml.matchAll(new RegExp(`^\\s*${name}:\\s*(\\d+)\\s*(?:#.*)?$`, 'gm'))];
    if (matches.length !== 1) throw new Error(`patroni.yml: ${name} found ${matches.length} times`);
    return Number(matches[0]![1]);
  };
  return { ttlS: read('ttl'), loopWaitS: read('loop_wait') };
}

/** The documented bound of a failover's pause in writes: ttl + loop_wait + PAUSE_MARGIN_MS. */
export function pauseBoundMs(yaml: string): number {
  const { ttlS, loopWaitS } = patroniTimings(yaml);
  return (ttlS + loopWaitS) * 1000 + PAUSE_MARGIN_MS;
}

export function judgePhases(phases: Phase[], crashes: string[]): Goal {
  const failed = phases.filter((p) => p.failed);
  return {
    name: 'every phase carried out, no instance exited unasked',
    met: phases.length > 0 && failed.length === 0 && crashes.length === 0,
    detail:
      [...failed.map((p) => `${p.name}: ${p.detail}`), ...crashes].join('; ') || `${phases.length} phases`,
  };
}

export function judgeRetryable(records: RequestRecord[]): Goal {
  const failed = records.filter((r) => r.outcome !== 'ok');
  const not = failed.filter((r) => !isRetryable(r.outcome));
  return {
    name: 'every failed request retryable (503 with Retry-After, 429, 409 in flight, a cut connection; never a 500)',
    met: records.length > 0 && not.length === 0,
    detail: not.length
      ? `${not.length} not retryable: ${[...new Set(not.map((r) => `${r.route} ${r.outcome}`))].slice(0, 5).join(', ')}`
      : `${failed.length} failed of ${records.length}, all retryable`,
  };
}

export function judgePause(pause: Pause, callsFailed: number, boundMs: number): Goal {
  // The longer of the two: a write that failed just before the kill and one that got through at
  // once can make "first failed to first ok" short while no write was acknowledged for long.
  const pauseMs = Math.max(pause.failedToOk ?? 0, pause.longestGap);
  return {
    name: `failover: the pause in writes within the documented bound (Patroni's ttl + loop_wait + ${seconds(PAUSE_MARGIN_MS)}: ${seconds(boundMs)}), 0 calls failed after retries`,
    met: !Number.isNaN(pauseMs) && pauseMs <= boundMs && callsFailed === 0,
    detail: `first failed write to first acknowledged ${
      pause.failedToOk === null
        ? '- (none failed)'
        : Number.isNaN(pause.failedToOk)
          ? 'never'
          : seconds(pause.failedToOk)
    }, longest without an acknowledged write ${seconds(pause.longestGap)}; ${callsFailed} calls failed after the client's retries`,
  };
}

export function judgeWrites(all: WriteCount): Goal {
  return {
    name: 'writes acknowledged = rows found on the new primary: 0 lost, 0 duplicated',
    met: all.lost === 0 && all.duplicated === 0 && all.acknowledged > 0 && all.found === all.acknowledged,
    detail: `${all.acknowledged} acknowledged, ${all.found} found once, ${all.lost} lost, ${all.duplicated} duplicated`,
  };
}

export function judgeEvents(input: {
  written: number;
  undelivered: number;
  deliveries: number;
  withoutEvent: string[];
}): Goal {
  const { written, undelivered, deliveries, withoutEvent } = input;
  return {
    name: "every event written delivered at least once; every acknowledged write's event written",
    met: written > 0 && undelivered === 0 && withoutEvent.length === 0,
    detail: `${written} written, ${written - undelivered} delivered (${deliveries} deliveries); ${
      withoutEvent.length
    } acknowledged writes without an event${withoutEvent.length ? ` (${withoutEvent.slice(0, 3).join(', ')})` : ''}`,
  };
}

/**
 * `refusedIn`: ms from the command's return to the sending of the first request the last instance
 * refused (NaN: some instance never did).
 */
export function judgeRevoke(refusedIn: number, boundMs: number, cacheTtlMs: number): Goal {
  return {
    name: `a key revoked after the failover refused by every instance within ${boundMs} ms (key cache ${cacheTtlMs} ms: only the notification can do it)`,
    met: cacheTtlMs > boundMs && !Number.isNaN(refusedIn) && refusedIn <= boundMs,
    detail: Number.isNaN(refusedIn)
      ? 'not refused everywhere within 10 s'
      : `the last instance refused a request sent ${Math.max(0, refusedIn).toFixed(0)} ms after${cacheTtlMs > boundMs ? '' : '; the cache alone would meet the bound'}`,
  };
}

export interface Rejoin {
  /** The old leader's role and state in GET /cluster once it is back (null: it never came back). */
  role: string | null;
  state: string | null;
  timeline?: number;
  leaderTimeline?: number;
  /** ms from its start to running as a replica. */
  ms: number;
  /** Its Patroni log since the start. */
  log: string;
}

/**
 * The old leader rejoins as a replica of the new one, rewound by pg_rewind (or, Patroni's own
 * report, found with nothing to rewind), never copied afresh.
 */
export function judgeRejoin(rejoin: Rejoin, boundMs: number): Goal {
  const back =
    rejoin.role !== null &&
    ['replica', 'sync_standby'].includes(rejoin.role) &&
    ['running', 'streaming'].includes(rejoin.state ?? '');
  const rewound = /pg_rewind exit code=0\b/.test(rejoin.log);
  const rewindFailed = /pg_rewind exit code=[1-9]|Failed to rewind|Can not use \S+ for rewind/.test(
    rejoin.log,
  );
  const checked = /Local timeline=\d+ lsn=/.test(rejoin.log);
  const copied = /pg_basebackup|reinitialize|Removing data directory|bootstrap/i.test(rejoin.log);
  const sameTimeline =
    rejoin.timeline === undefined ||
    rejoin.leaderTimeline === undefined ||
    rejoin.timeline === rejoin.leaderTimeline;
  const how = rewound
    ? 'rewound with pg_rewind'
    : rewindFailed
      ? 'pg_rewind failed'
      : checked
        ? "Patroni's check found nothing to rewind"
        : 'no rewind check in its log';
  return {
    name: `the old leader rejoins as a replica, rewound by pg_rewind (or found with nothing to rewind), within ${seconds(boundMs)}`,
    met: back && !copied && !rewindFailed && (rewound || checked) && rejoin.ms <= boundMs,
    detail: `${rejoin.role === null ? 'not back' : `back as ${rejoin.role} (${rejoin.state})`} in ${seconds(rejoin.ms)}; ${how}${
      copied ? '; copied afresh (basebackup or reinit)' : ''
    }${sameTimeline ? '' : `; timeline ${rejoin.timeline}, the leader's ${rejoin.leaderTimeline}`}`,
  };
}

export function judgeSwitchover(phase: Phase, failedAttempts: number): Goal {
  return {
    name: 'switchover: 0 failed calls after the client retries',
    met: !phase.failed && phase.callsFailed === 0,
    detail: `${failedAttempts} failed attempts (retried), ${phase.callsFailed} calls failed after retries`,
  };
}

/** No partner call gave up, in any phase (the failover's and the switchover's included). */
export function judgeNoCallGaveUp(phases: Phase[], failures: Map<string, number>): Goal {
  const gaveUp = phases.filter((p) => p.callsFailed > 0);
  const total = phases.reduce((sum, p) => sum + p.callsFailed, 0);
  return {
    name: "no call failed after the client's retries, in any phase",
    met: phases.length > 0 && total === 0,
    detail: total
      ? `${total} calls gave up: ${gaveUp.map((p) => `${p.callsFailed} in "${p.name}"`).join(', ')}${
          failures.size ? ` (${[...failures.entries()].map(([k, n]) => `${n}x ${k}`).join(', ')})` : ''
        }`
      : `0 in ${phases.length} phases`,
  };
}

/** One attempt at the cluster from outside it; `accepted` is what a member's attempt must get. */
export interface Attempt {
  what: string;
  /** true: the attempt was turned away (what an outsider must get). */
  refused: boolean;
  detail: string;
}

/**
 * Issue 38: only members steer. Every outsider's attempt refused (etcd without a client
 * certificate, PostgreSQL in plain text, a Patroni change without a client certificate), and every
 * member's control attempt accepted (so that a refusal is not just something down).
 */
export function judgeMembersOnly(outsiders: Attempt[], members: Attempt[]): Goal {
  const accepted = outsiders.filter((a) => !a.refused);
  const membersRefused = members.filter((a) => a.refused);
  return {
    name: "only members steer: an etcd write without a client certificate, a plain-text PostgreSQL connection and a Patroni change without a client certificate are refused; the members' own are not",
    met: outsiders.length > 0 && members.length > 0 && accepted.length === 0 && membersRefused.length === 0,
    detail: [
      ...outsiders.map((a) => `${a.what}: ${a.refused ? 'refused' : 'ACCEPTED'} (${a.detail})`),
      ...members.map(
        (a) => `${a.what}: ${a.refused ? 'REFUSED' : 'accepted'}${a.refused ? ` (${a.detail})` : ''}`,
      ),
    ].join('; '),
  };
}

export interface PitrCounts {
  before: number;
  beforeOnce: number;
  after: number;
  afterFound: number;
  straddling: number;
  straddlingTwice: number;
}

/** Exactly the writes acknowledged before the target, none sent after it, none twice. */
export function pitrExact(counts: PitrCounts): boolean {
  return (
    counts.before > 0 &&
    counts.beforeOnce === counts.before &&
    counts.afterFound === 0 &&
    counts.straddlingTwice === 0
  );
}

/** What a failover run saw, gathered by run.ts: the input of every goal. */
export interface FailoverRun {
  attempts: { outsiders: Attempt[]; insiders: Attempt[] };
  phases: Phase[];
  crashes: string[];
  /** Requests that ended while the load ran. */
  records: RequestRecord[];
  failover: Phase;
  failoverPause: Pause;
  pauseBoundMs: number;
  /** The whole run's writes: acknowledged against the rows on the final primary. */
  writes: WriteCount;
  events: Parameters<typeof judgeEvents>[0];
  refusedIn: number;
  revokeBoundMs: number;
  keyCacheTtlMs: number;
  rejoin: Rejoin;
  rejoinBoundMs: number;
  switchover: Phase;
  switchoverFailedAttempts: number;
  /** Calls that gave up outside every phase (the warm-up, the tail before the load stopped). */
  callsFailedOutside: number;
  callFailures: Map<string, number>;
  pitr: { met: boolean; goal: string };
}

/** The failover rehearsal's goals, in the order the table lists them. */
export const FAILOVER_GOALS: readonly GoalOf<FailoverRun>[] = [
  (run) => judgeMembersOnly(run.attempts.outsiders, run.attempts.insiders),
  (run) => judgePhases(run.phases, run.crashes),
  (run) => judgeRetryable(run.records),
  (run) => judgePause(run.failoverPause, run.failover.callsFailed, run.pauseBoundMs),
  (run) => judgeWrites(run.writes),
  (run) => judgeEvents(run.events),
  (run) => judgeRevoke(run.refusedIn, run.revokeBoundMs, run.keyCacheTtlMs),
  (run) => judgeRejoin(run.rejoin, run.rejoinBoundMs),
  (run) => judgeSwitchover(run.switchover, run.switchoverFailedAttempts),
  (run) =>
    judgeNoCallGaveUp(
      run.callsFailedOutside > 0
        ? [
            ...run.phases,
            {
              name: 'outside the phases',
              detail: '',
              start: 0,
              until: 0,
              callsFailed: run.callsFailedOutside,
            },
          ]
        : run.phases,
      run.callFailures,
    ),
  (run) => ({
    name: 'PITR: exactly the writes acknowledged before the target, none after; the API serves it with the same keys',
    met: run.pitr.met,
    detail: run.pitr.goal,
  }),
];

export function judgeFailover(run: FailoverRun): Goal[] {
  return judgeGoals(FAILOVER_GOALS, run);
}
