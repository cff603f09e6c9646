// Issue 39, goal 4 "A rehearsal whose every goal can fail": each goal of the failover rehearsal
// (deploy/rehearsal/failover/judge.ts) shown missed on what a broken run would have seen, and met
// on what a good one sees. Issue 38, goal 1: the members-only goal misses when an outsider's
// attempt is accepted, as it was with the files before TLS.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
  PAUSE_MARGIN_MS,
  pauseBoundMs,
  pitrExact,
  type Rejoin,
} from '../../deploy/rehearsal/failover/judge.js';
import { isRetryable, type RequestRecord } from '../../deploy/rehearsal/lib/recorder.js';
import type { Phase } from '../../deploy/rehearsal/lib/scenario.js';

const patroniYaml = readFileSync(
  fileURLToPath(new URL('../../deploy/patroni/patroni.yml', import.meta.url)),
  'utf8',
);

const phase = (name: string, callsFailed = 0, failed = false): Phase => ({
  name,
  detail: failed ? 'FAILED: x' : 'done',
  start: 0,
  until: 1,
  callsFailed,
  failed,
});
const record = (outcome: string, status = Number(outcome.slice(0, 3)) || 0): RequestRecord => ({
  at: 0,
  ms: 1,
  route: 'POST /customers',
  status,
  outcome,
});

describe('a 500 is never retryable (issue 39, goal 4)', () => {
  it('retryable: a cut connection, 429, 409 in flight, 503 with Retry-After', () => {
    for (const outcome of [
      'network ECONNRESET',
      '429 rate_limited',
      '409 idempotency_request_in_flight',
      '503 from HAProxy',
      '503 api (generic)',
    ])
      expect(isRetryable(outcome), outcome).toBe(true);
  });

  it('not retryable: 500, 502, 504, a 503 without Retry-After, another 409', () => {
    for (const outcome of [
      '500 api (generic)',
      '500 internal_error',
      '502 from HAProxy',
      '504 bare, no X-Request-Id',
      '503 api (generic) without Retry-After',
      '409 conflict',
    ])
      expect(isRetryable(outcome), outcome).toBe(false);
  });

  it('the goal misses on one 500 among retryable failures', () => {
    const good = [record('ok', 201), record('503 from HAProxy'), record('network ECONNRESET')];
    expect(judgeRetryable(good).met).toBe(true);
    const bad = judgeRetryable([...good, record('500 api (generic)')]);
    expect(bad.met).toBe(false);
    expect(bad.detail).toContain('500 api (generic)');
  });
});

describe('the pause bound is the documented one (issue 39, goal 4)', () => {
  it("is Patroni's ttl + loop_wait of patroni.yml plus the stated margin", () => {
    const ttl = Number(/^\s*ttl: (\d+)/m.exec(patroniYaml)![1]);
    const loopWait = Number(/^\s*loop_wait: (\d+)/m.exec(patroniYaml)![1]);
    expect(pauseBoundMs(patroniYaml)).toBe((ttl + loopWait) * 1000 + PAUSE_MARGIN_MS);
    expect(pauseBoundMs('ttl: 30\nloop_wait: 10\n')).toBe(45_000);
  });

  it('misses above the bound, when the writes never came back, or when a call gave up', () => {
    const bound = 30_000;
    expect(judgePause({ failedToOk: 21_800, longestGap: 21_900 }, 0, bound).met).toBe(true);
    expect(judgePause({ failedToOk: 30_500, longestGap: 30_600 }, 0, bound).met).toBe(false);
    expect(judgePause({ failedToOk: Number.NaN, longestGap: 60_000 }, 0, bound).met).toBe(false);
    expect(judgePause({ failedToOk: null, longestGap: 31_000 }, 0, bound).met).toBe(false);
    expect(judgePause({ failedToOk: 10_000, longestGap: 10_000 }, 1, bound).met).toBe(false);
    // A short "first failed to first ok" does not hide a long time without an acknowledged write.
    expect(judgePause({ failedToOk: 200, longestGap: 31_000 }, 0, bound).met).toBe(false);
  });
});

describe('the revoked-key bound is met by the notification only (issue 39, goal 4)', () => {
  it('misses when an instance was late or never refused, and when the key cache alone could meet it', () => {
    expect(judgeRevoke(114, 1000, 60_000).met).toBe(true);
    expect(judgeRevoke(1500, 1000, 60_000).met).toBe(false);
    expect(judgeRevoke(Number.NaN, 1000, 60_000).met).toBe(false);
    // With the default cache of 1 s the goal proves nothing: it is missed.
    expect(judgeRevoke(114, 1000, 1000).met).toBe(false);
  });
});

describe('the pg_rewind rejoin is a goal (issue 39, goal 4)', () => {
  const rewound: Rejoin = {
    role: 'replica',
    state: 'streaming',
    ms: 11_800,
    log: 'INFO: Local timeline=2 lsn=0/5000000\nINFO: running pg_rewind from pg2\nINFO: pg_rewind exit code=0\n',
  };

  it('met when the old leader is back as a replica, rewound (or with nothing to rewind)', () => {
    expect(judgeRejoin(rewound, 60_000).met).toBe(true);
    expect(judgeRejoin({ ...rewound, role: 'sync_standby', state: 'running' }, 60_000).met).toBe(true);
    expect(judgeRejoin({ ...rewound, log: 'INFO: Local timeline=2 lsn=0/5000000\n' }, 60_000).met).toBe(true);
  });

  it('missed when it never came back, pg_rewind failed, it was copied afresh, no check ran, or it was late', () => {
    expect(judgeRejoin({ ...rewound, role: null, state: null }, 60_000).met).toBe(false);
    expect(judgeRejoin({ ...rewound, state: 'start failed' }, 60_000).met).toBe(false);
    expect(
      judgeRejoin(
        { ...rewound, log: 'INFO: running pg_rewind from pg2\nINFO: pg_rewind exit code=1\n' },
        60_000,
      ).met,
    ).toBe(false);
    expect(
      judgeRejoin({ ...rewound, log: `${rewound.log}INFO: Removing data directory: /x\n` }, 60_000).met,
    ).toBe(false);
    expect(judgeRejoin({ ...rewound, log: 'INFO: no action\n' }, 60_000).met).toBe(false);
    expect(judgeRejoin({ ...rewound, ms: 61_000 }, 60_000).met).toBe(false);
  });
});

describe('a call that gives up in any phase fails the run (issue 39, goal 4)', () => {
  it('misses on a call given up in a phase that has no goal of its own', () => {
    const phases = [
      phase('steady load'),
      phase('failover'),
      phase('revoke'),
      phase('rejoin'),
      phase('switchover'),
    ];
    expect(judgeNoCallGaveUp(phases, new Map()).met).toBe(true);
    const late = judgeNoCallGaveUp(
      [...phases.slice(0, 3), phase('rejoin', 1), phase('switchover')],
      new Map([['503 api (generic)', 1]]),
    );
    expect(late.met).toBe(false);
    expect(late.detail).toContain('1 in "rejoin"');
  });
});

describe('every other goal can be missed (issue 39, goal 4)', () => {
  it('phases: one not carried out, or an instance that exited unasked', () => {
    expect(judgePhases([phase('a'), phase('b')], []).met).toBe(true);
    expect(judgePhases([phase('a'), phase('b', 0, true)], []).met).toBe(false);
    expect(judgePhases([phase('a')], ['invoicing2 (exit 1) at 30 s']).met).toBe(false);
  });

  it('writes: one lost, one duplicated, or none acknowledged', () => {
    expect(judgeWrites({ acknowledged: 10, found: 10, lost: 0, duplicated: 0 }).met).toBe(true);
    expect(judgeWrites({ acknowledged: 10, found: 9, lost: 1, duplicated: 0 }).met).toBe(false);
    expect(judgeWrites({ acknowledged: 10, found: 10, lost: 0, duplicated: 1 }).met).toBe(false);
    expect(judgeWrites({ acknowledged: 0, found: 0, lost: 0, duplicated: 0 }).met).toBe(false);
  });

  it('events: one undelivered, or an acknowledged write without its event', () => {
    expect(judgeEvents({ written: 5, undelivered: 0, deliveries: 6, withoutEvent: [] }).met).toBe(true);
    expect(judgeEvents({ written: 5, undelivered: 1, deliveries: 4, withoutEvent: [] }).met).toBe(false);
    expect(judgeEvents({ written: 5, undelivered: 0, deliveries: 5, withoutEvent: ['fo-1'] }).met).toBe(
      false,
    );
  });

  it('switchover: a call that gave up, or the switchover itself failed', () => {
    expect(judgeSwitchover(phase('switchover'), 12).met).toBe(true);
    expect(judgeSwitchover(phase('switchover', 1), 12).met).toBe(false);
    expect(judgeSwitchover(phase('switchover', 0, true), 0).met).toBe(false);
  });

  it('PITR: a write acknowledged before the target missing, one sent after it present, one twice', () => {
    const exact = {
      before: 210,
      beforeOnce: 210,
      after: 688,
      afterFound: 0,
      straddling: 1,
      straddlingTwice: 0,
    };
    expect(pitrExact(exact)).toBe(true);
    expect(pitrExact({ ...exact, beforeOnce: 209 })).toBe(false);
    expect(pitrExact({ ...exact, afterFound: 1 })).toBe(false);
    expect(pitrExact({ ...exact, straddlingTwice: 1 })).toBe(false);
    expect(pitrExact({ ...exact, before: 0, beforeOnce: 0 })).toBe(false);
  });
});

describe('only members steer (issue 38, goal 1)', () => {
  const refused = (what: string): Attempt => ({ what, refused: true, detail: 'refused' });
  const accepted = (what: string): Attempt => ({ what, refused: false, detail: 'OK' });
  const outsiders = [
    refused('etcdctl put, TLS, no client certificate'),
    refused('etcdctl put, plain text'),
    refused('PostgreSQL in plain text through HAProxy'),
    refused('Patroni POST /reload, no client certificate'),
  ];
  const members = [accepted("etcdctl get with pg1's certificate"), accepted('PostgreSQL over TLS')];

  it('met when every outsider is refused and every member accepted', () => {
    expect(judgeMembersOnly(outsiders, members).met).toBe(true);
  });

  it('missed on the files before TLS: an etcdctl put and a plain-text connection accepted', () => {
    const before = judgeMembersOnly(
      [accepted('etcdctl put, plain text'), accepted('PostgreSQL in plain text through HAProxy')],
      members,
    );
    expect(before.met).toBe(false);
    expect(before.detail).toContain('etcdctl put, plain text: ACCEPTED');
    expect(
      judgeMembersOnly([...outsiders.slice(1), accepted('etcdctl put, TLS, no client certificate')], members)
        .met,
    ).toBe(false);
  });

  it('missed when a member is refused too (the refusals may be something down)', () => {
    expect(judgeMembersOnly(outsiders, [refused("etcdctl get with pg1's certificate")]).met).toBe(false);
    expect(judgeMembersOnly(outsiders, []).met).toBe(false);
  });
});
