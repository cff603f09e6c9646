// Issue 42, goal 2: the rolling rehearsal's goals are data (deploy/rehearsal/lib/goals.ts,
// ROLLING_GOALS), each judged on its own from what a run saw: every one met on what a good run
// sees, and each missed on what a broken run would see, with the bounds of `npm run rehearsal`.
import { describe, expect, it } from 'vitest';
import { ROLLING_GOALS, type RollingSeen } from '../../deploy/rehearsal/lib/goals.js';
import type { RequestRecord } from '../../deploy/rehearsal/lib/recorder.js';
import type { EventWindow } from '../../deploy/rehearsal/lib/scenario.js';
import { judgeGoals } from '../../deploy/rehearsal/lib/scenario.js';

const record = (outcome: string): RequestRecord =>
  ({
    at: 0,
    ms: 1,
    route: 'POST /customers',
    status: outcome === 'ok' ? 201 : 503,
    outcome,
  }) as RequestRecord;
const event = (name: string, failed = false): EventWindow => ({
  ...{ name, detail: failed ? 'FAILED: x' : 'done', failed, start: 0, end: 1, until: 2 },
  ...{ beforeMs: 0, afterMs: 0, callsFailed: 0 },
});
const latency = (p99: number) => ({ n: 10, p50: p99 / 2, p99 });
const up = (value: number) => ({ labels: { instance: `i${value}` }, value });

function good(): RollingSeen {
  return {
    events: [event('steady load'), event('restart invoicing1')],
    crashes: [],
    restartRecords: [record('ok'), record('ok')],
    faultRecords: [record('ok'), record('503 api (generic)'), record('network ECONNRESET')],
    once: { writes: 10, retried: 1, wrong: [], strangers: 0 },
    lists: { count: 9, asks: 6, mismatches: [] },
    hold: { before: latency(100), during: latency(150), maxHeld: 6, p99Ratio: 1.5 },
    prometheus: {
      up: [up(1), up(1), up(1)],
      activeRoutes: [{ labels: { method: 'POST', route: '/customers' }, value: 2 }],
      routesSeen: 1,
    },
    rules: { ok: true, output: 'SUCCESS: 9 rules found', groups: 2, rules: 9 },
  };
}

const verdicts = (seen: RollingSeen) => judgeGoals(ROLLING_GOALS, seen).map((goal) => goal.met);

describe('the rolling rehearsal goals', () => {
  it('are all met on what a good run sees', () => {
    expect(verdicts(good())).toEqual(ROLLING_GOALS.map(() => true));
  });

  const broken: [string, (seen: RollingSeen) => void][] = [
    ['an event that failed', (s) => s.events.push(event('restart Redis', true))],
    ['an instance that exited unasked', (s) => s.crashes.push({ name: 'invoicing2', at: 1, exit: 'code 1' })],
    ['one failed request in the rolling restart', (s) => s.restartRecords.push(record('503 from HAProxy'))],
    ['a 500 during the faults', (s) => s.faultRecords.push(record('500 api (generic)'))],
    [
      'a 503 without Retry-After during the faults',
      (s) => s.faultRecords.push(record('503 api without Retry-After')),
    ],
    ['a write found twice', (s) => s.once.wrong.push({ marker: 'rh-1', count: 2, retries: 1 })],
    ['a row no write made', (s) => (s.once.strangers = 1)],
    ['no write at all', (s) => (s.once.writes = 0)],
    [
      'a list total unequal to count(*)',
      (s) => s.lists.mismatches.push('company 1 customers: 3, count(*) 4'),
    ],
    ['a p99 during the hold above 1.5x the one before', (s) => (s.hold.during = latency(151))],
    ['a hold that held nothing', (s) => (s.hold.maxHeld = 0)],
    ['an instance down in Prometheus', (s) => (s.prometheus.up[2] = up(0))],
    ['an instance Prometheus never scraped', (s) => s.prometheus.up.pop()],
    ['a route without its rate', (s) => (s.prometheus.routesSeen = 2)],
    ['promtool refusing the rules', (s) => (s.rules.ok = false)],
    ['no rule loaded', (s) => (s.rules.rules = 0)],
  ];
  for (const [what, breakIt] of broken)
    it(`miss exactly one goal on ${what}`, () => {
      const seen = good();
      breakIt(seen);
      expect(verdicts(seen).filter((met) => !met)).toHaveLength(1);
    });
});
