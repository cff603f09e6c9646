// A clock a test can move on, for the rate limits counted in memory (rate-limiter-flexible reads
// Date.now()): Date.now() returns the real time plus an offset. Unlike vitest's fake timers with
// shouldAdvanceTime, which move the faked time on in steps driven by a timer (and so fall behind
// the real time while the event loop is busy), this clock runs at the real rate, as a server's
// does: a client that waits the seconds a server announced finds the window really reset.
import { type MockInstance, vi } from 'vitest';

export interface MovableClock {
  /** Moves Date.now() on by `ms`. */
  advance(ms: number): void;
  restore(): void;
}

export function movableClock(): MovableClock {
  const real = Date.now.bind(Date);
  let offset = 0;
  const spy: MockInstance<() => number> = vi.spyOn(Date, 'now').mockImplementation(() => real() + offset);
  return {
    advance: (ms) => {
      offset += ms;
    },
    restore: () => spy.mockRestore(),
  };
}
