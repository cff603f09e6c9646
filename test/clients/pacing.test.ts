// The TypeScript client's pacer on answers written by the test and a clock it controls (the same
// rules as the PHP and Python clients' pacers, whose unit tests mirror these); retries.test.ts shows
// it against a real server.
import { describe, expect, it } from 'vitest';
import { type PaceInfo, Pacer, parseList } from '../../clients/typescript/src/pacing.js';
import { testStorage } from '../helpers/database.js';

const READ_POLICY = '"key-minute";q=60;w=60, "key-day";q=5000;w=86400, "company-minute";q=120;w=60';
const WRITE_POLICY = `${READ_POLICY}, "key-writes-minute";q=10;w=60`;

function answer(policy: string, tightest: string): { get(name: string): string | null } {
  const headers = new Headers({ 'ratelimit-policy': policy, ratelimit: tightest });
  return headers;
}

/** A pacer whose clock the test moves on (`real`: the real clock, for a wait that must end). */
function setup(maxWaitMs = 60_000, real = false) {
  let now = 1_000_000;
  const paces: PaceInfo[] = [];
  const clock = real ? () => performance.now() : () => now;
  const pacer = new Pacer(maxWaitMs, (info) => paces.push(info), clock);
  return {
    pacer,
    paces,
    advance: (ms: number) => {
      now += ms;
    },
    state: (name: string) => pacer.snapshot().find((limit) => limit.name === name),
  };
}

describe.runIf(testStorage() === 'pglite')('TypeScript client: the pacer', () => {
  it('parses the structured-field lists of the headers', () => {
    expect(parseList('"key-minute";q=60;w=60, "key-writes-minute";q=10;w=60')).toEqual([
      { name: 'key-minute', params: { q: 60, w: 60 } },
      { name: 'key-writes-minute', params: { q: 10, w: 60 } },
    ]);
    expect(parseList('token;r=1, "x,y";r=2, ;;, bad name;r=3, "z";r=x')).toEqual([
      { name: 'token', params: { r: 1 } },
      { name: 'x,y', params: { r: 2 } },
      { name: 'z', params: {} },
    ]);
    expect(parseList(null)).toEqual([]);
  });

  it('never waits for a server without the headers', async () => {
    const { pacer, paces } = setup();
    for (let i = 0; i < 20; i++) pacer.release(await pacer.acquire('write'), new Headers());
    expect(paces).toEqual([]);
    expect(pacer.snapshot()).toEqual([]);
  });

  it('until the first answer, one request of a kind at a time', async () => {
    const { pacer } = setup();
    const first = await pacer.acquire('write');
    const read = await pacer.acquire('read'); // another kind: not held back
    let second = false;
    const waiting = pacer.acquire('write').then((ticket) => {
      second = true;
      return ticket;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second).toBe(false);
    pacer.release(first, answer(WRITE_POLICY, '"key-writes-minute";r=9;t=60'));
    pacer.release(await waiting, null);
    pacer.release(read, null);
  });

  it('counts reservations down, learns what applies to reads and writes, and gets the quota back', async () => {
    const { pacer, state, advance, paces } = setup();
    pacer.release(await pacer.acquire('write'), answer(WRITE_POLICY, '"key-writes-minute";r=2;t=60'));
    const held = [await pacer.acquire('write'), await pacer.acquire('write')];
    expect(state('key-writes-minute')).toMatchObject({
      quota: 10,
      windowSeconds: 60,
      remaining: 0,
      appliesTo: ['write'],
    });
    // Every other limit of the policy had at least r=2 left; learnt from a write, it counts writes.
    expect(state('key-minute')).toMatchObject({ remaining: 0, appliesTo: ['write'] });
    for (const ticket of held) pacer.release(ticket, null);
    advance(61_000);
    pacer.release(await pacer.acquire('write'), null);
    expect(paces).toEqual([]);
    expect(state('key-writes-minute')?.remaining).toBe(9);
  });

  it('waits for a spent limit until its reset; a limit of reads holds writes too', async () => {
    const { pacer, paces } = setup(60_000, true);
    pacer.release(await pacer.acquire('read'), answer(READ_POLICY, '"key-minute";r=0;t=1'));
    const started = performance.now();
    pacer.release(await pacer.acquire('write'), null);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    expect(paces).toEqual([{ kind: 'write', limit: 'key-minute', delayMs: expect.any(Number) }]);
    expect(paces[0]?.delayMs).toBeLessThanOrEqual(1000);
  });

  it('does not make a wait longer than the longest wait (the daily limit)', async () => {
    const { pacer, paces } = setup(500);
    pacer.release(await pacer.acquire('read'), answer(READ_POLICY, '"key-day";r=0;t=40000'));
    pacer.release(await pacer.acquire('read'), null);
    expect(paces).toEqual([]);
  });

  it('answers arriving out of order never raise what is left', async () => {
    const { pacer, state } = setup();
    pacer.release(await pacer.acquire('write'), answer(WRITE_POLICY, '"key-writes-minute";r=5;t=60'));
    const a = await pacer.acquire('write');
    const b = await pacer.acquire('write');
    pacer.release(b, answer(WRITE_POLICY, '"key-writes-minute";r=3;t=60'));
    pacer.release(a, answer(WRITE_POLICY, '"key-writes-minute";r=4;t=60'));
    expect(state('key-writes-minute')?.remaining).toBe(2);
  });
});
