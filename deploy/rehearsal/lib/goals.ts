// The goals of the rolling rehearsal, as data (ROLLING_GOALS, judged by the frame's judgeGoals):
// each a pure function of what `observe` gathered from every request's record, the events'
// windows, the database, the lists the API answers, Prometheus and promtool, so that each can be
// shown met and missed on its own (test/deploy/rolling-goals.unit.test.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { countRows, type ExactlyOnce, exactlyOnce } from './checks.js';
import type { Load } from './load.js';
import { waitUntil } from './processes.js';
import { seconds } from './progress.js';
import { checkRules, type Sample } from './prometheus.js';
import { isRetryable, type RequestRecord } from './recorder.js';
import { endedWithin, failuresByKind, type Goal, type Latency, latency } from './report.js';
import { type EventWindow, type GoalOf, judgeGoals } from './scenario.js';
import { crashes } from './service.js';
import { INSTANCES, type Stack } from './stack.js';

export interface Judged {
  records: RequestRecord[];
  /** Every event, the steady load first. */
  events: EventWindow[];
  restarts: EventWindow[];
  /** SIGKILL, Redis and PostgreSQL restarts. */
  faults: EventWindow[];
  hold: EventWindow;
  holdP99Ratio: number;
  stack: Stack;
  load: Load;
  runId: string;
}

/** What a rolling run saw, gathered by `observe`: the input of every goal. */
export interface RollingSeen {
  events: EventWindow[];
  crashes: { name: string; at: number; exit: string }[];
  restartRecords: RequestRecord[];
  faultRecords: RequestRecord[];
  once: ExactlyOnce;
  lists: { count: number; asks: number; mismatches: string[] };
  hold: { before: Latency; during: Latency; maxHeld: number; p99Ratio: number };
  prometheus: { up: Sample[]; activeRoutes: Sample[]; routesSeen: number };
  rules: { ok: boolean; output: string; groups: number; rules: number };
}

/** Gathers what the goals judge: the database, the lists the API answers, Prometheus, promtool. */
export async function observe(input: Judged): Promise<RollingSeen> {
  const { records, events, restarts, faults, hold, holdP99Ratio, stack, load, runId } = input;
  const inWindow = (from: number, to: number) => endedWithin(records, from, to);
  const once = await exactlyOnce(stack.databaseUrl, runId, load.writes);
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
  const rules = await checkRules();
  const loaded = await stack.prometheus.ruleGroups();
  return {
    events,
    crashes: [...crashes],
    restartRecords: inWindow(restarts[0]!.start, restarts[restarts.length - 1]!.until),
    faultRecords: inWindow(faults[0]!.start, faults[faults.length - 1]!.until),
    once,
    lists: { count: totals.length, asks: INSTANCES * 2, mismatches },
    hold: {
      before: latency(records, hold.start - hold.beforeMs, hold.start),
      during: latency(records, hold.start, hold.end),
      maxHeld: stack.receivers.stats().maxHeld,
      p99Ratio: holdP99Ratio,
    },
    prometheus: {
      up,
      activeRoutes: rates.filter((sample) => sample.value > 0),
      routesSeen: new Set(records.map((r) => r.route)).size,
    },
    rules: {
      ...rules,
      groups: loaded.length,
      rules: loaded.reduce((sum, group) => sum + group.rules, 0),
    },
  };
}

const kindsText = (kinds: Map<string, number>) =>
  [...kinds.entries()].map(([k, n]) => `${n}x ${k}`).join(', ');

/** The rolling rehearsal's goals, in the order the table lists them. */
export const ROLLING_GOALS: readonly GoalOf<RollingSeen>[] = [
  ({ events, crashes: crashed }) => {
    const failedEvents = events.filter((e) => e.failed);
    return {
      name: 'every event carried out, no instance exited unasked',
      met: failedEvents.length === 0 && crashed.length === 0,
      detail:
        [
          ...failedEvents.map((e) => `${e.name}: ${e.detail}`),
          ...crashed.map((c) => {
            const during = events.filter((e) => e.start <= c.at).pop();
            return `${c.name} crashed (${c.exit}) at ${seconds(c.at)}${during ? `, during/after "${during.name}"` : ''}`;
          }),
        ].join('; ') || `${events.length - 1} events, no crash`,
    };
  },
  ({ restartRecords }) => {
    const failures = failuresByKind(restartRecords);
    const failed = [...failures.values()].reduce((a, b) => a + b, 0);
    return {
      name: 'rolling restart (SIGTERM, start, ready, one instance after the other): 0 failed requests',
      met: failures.size === 0,
      detail:
        `${restartRecords.length} requests, ${failed} failed ${failures.size ? `(${kindsText(failures)})` : ''}`.trim(),
    };
  },
  ({ faultRecords }) => {
    const notRetryable = failuresByKind(faultRecords.filter((r) => !isRetryable(r.outcome)));
    const failed = faultRecords.filter((r) => r.outcome !== 'ok').length;
    return {
      name: 'SIGKILL, Redis and PostgreSQL restarts: only retryable answers',
      met: notRetryable.size === 0,
      detail: `${faultRecords.length} requests, ${failed} failed, ${
        notRetryable.size === 0
          ? 'all retryable (429, 409 in flight, 503 with Retry-After, no answer)'
          : `not retryable: ${kindsText(notRetryable)}`
      }`,
    };
  },
  ({ once }) => ({
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
  }),
  ({ lists }) => ({
    name: 'list totals equal count(*) (asked through HAProxy, every instance)',
    met: lists.mismatches.length === 0,
    detail:
      lists.mismatches.length === 0
        ? `${lists.count} lists x ${lists.asks} asks, all equal`
        : lists.mismatches.join('; '),
  }),
  ({ hold }) => ({
    name: `webhook receivers slow: p99 during <= ${hold.p99Ratio}x p99 before`,
    met: hold.maxHeld > 0 && hold.during.p99 <= hold.before.p99 * hold.p99Ratio,
    detail:
      hold.maxHeld === 0
        ? 'no delivery was held: the hold did not happen'
        : `p99 ${hold.during.p99.toFixed(1)} ms during vs ${hold.before.p99.toFixed(1)} ms before (${(hold.during.p99 / hold.before.p99).toFixed(2)}x)`,
  }),
  ({ prometheus: { up, activeRoutes, routesSeen } }) => ({
    name: 'Prometheus: up of each instance, request rate by route',
    met:
      up.length === INSTANCES &&
      up.every((sample) => sample.value === 1) &&
      activeRoutes.length >= routesSeen,
    detail: `up: ${up.map((sample) => `${sample.labels.instance}=${sample.value}`).join(', ') || 'none'}; rate by route: ${[
      ...activeRoutes,
    ]
      .sort((a, b) => b.value - a.value)
      .map((sample) => `${sample.labels.method} ${sample.labels.route} ${sample.value.toFixed(2)}/s`)
      .join(', ')} (${activeRoutes.length} routes, the load used ${routesSeen})`,
  }),
  ({ rules }) => ({
    name: 'alert rules (deploy/prometheus/alerts.yml): promtool check rules, loaded by Prometheus',
    met: rules.ok && rules.rules > 0,
    detail: `${rules.output.split('\n').filter(Boolean).slice(-1)[0] ?? ''}; Prometheus loaded ${rules.groups} groups, ${rules.rules} rules`,
  }),
];

export async function judge(input: Judged): Promise<{ goals: Goal[]; notes: string[] }> {
  return { goals: judgeGoals(ROLLING_GOALS, await observe(input)), notes: [] };
}
