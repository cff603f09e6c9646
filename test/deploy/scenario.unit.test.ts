// Issue 42, goal 2 "One rehearsal frame": the frame's pieces both rehearsals stand on. Goals are
// data judged by one function (a goal that cannot be judged is missed, never dropped); a phase is
// an event with its window and the calls that gave up during it; failed writes are sent again
// until accepted or the bound passes.
import { describe, expect, it } from 'vitest';
import type { TrackedWrite } from '../../deploy/rehearsal/lib/load.js';
import { judgeGoals, resendFailed, Timeline } from '../../deploy/rehearsal/lib/scenario.js';

describe('judgeGoals', () => {
  it('judges every goal, in order, and misses one that throws instead of dropping it', () => {
    const goals = judgeGoals(
      [
        (n: number) => ({ name: 'small', met: n < 10, detail: `${n}` }),
        function brokenGoal(): never {
          throw new Error('no data');
        },
        (n: number) => ({ name: 'positive', met: n > 0, detail: `${n}` }),
      ],
      5,
    );
    expect(goals.map((g) => [g.name, g.met])).toEqual([
      ['small', true],
      ['brokenGoal', false],
      ['positive', true],
    ]);
    expect(goals[1]!.detail).toBe('not judged: no data');
    expect(judgeGoals([(n: number) => ({ name: 'small', met: n < 10, detail: '' })], 50)[0]!.met).toBe(false);
  });
});

describe('Timeline', () => {
  it("records each phase's window, detail and the calls that gave up during it; a failed action is said, not thrown", async () => {
    const load = { stats: { callsFailed: 2 } };
    const timeline = new Timeline(load);
    const done = await timeline.phase(
      'first',
      async () => {
        load.stats.callsFailed += 3;
        return 'did it';
      },
      { settleMs: 5, beforeMs: 7, afterMs: 9 },
    );
    expect(done).toMatchObject({ name: 'first', detail: 'did it', failed: false, callsFailed: 3 });
    expect(done.beforeMs).toBe(7);
    expect(done.afterMs).toBe(9);
    expect(done.start).toBeLessThanOrEqual(done.end);
    expect(done.until).toBeGreaterThanOrEqual(done.end + 4);
    const broken = await timeline.phase(
      'second',
      async () => {
        throw new Error('bounded wait expired');
      },
      { settleMs: 0 },
    );
    expect(broken).toMatchObject({ failed: true, detail: 'FAILED: bounded wait expired', callsFailed: 0 });
    expect(timeline.phases.map((p) => p.name)).toEqual(['first', 'second']);
  });
});

describe('resendFailed', () => {
  const write = (marker: string, failuresBeforeOk: number): TrackedWrite => {
    let left = failuresBeforeOk;
    return {
      marker,
      outcome: 'failed',
      resend: async () => {
        if (left-- > 0) throw new Error('503 again');
      },
    } as unknown as TrackedWrite;
  };

  it('sends each failed write again until accepted, and says which stayed refused', async () => {
    const writes = [write('a', 1), write('b', Number.POSITIVE_INFINITY), write('c', 0)];
    writes[2]!.outcome = 'created';
    const notes = await resendFailed(writes, { forMs: 30, everyMs: 5 });
    expect(writes.map((w) => w.outcome)).toEqual(['created', 'failed', 'created']);
    expect(writes[0]!.ackedAt).toBeTypeOf('number');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^2 writes failed for good .*a accepted after .*b still refused \(503 again\)$/);
    expect(await resendFailed([], { forMs: 1, everyMs: 1 })).toEqual([]);
  });
});
