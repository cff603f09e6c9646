// When a failed delivery is tried again. The schedule (WEBHOOK_RETRY_SCHEDULE) lists the delays
// before each retry; a delivery gets one first attempt plus one attempt per entry. Each delay is
// stretched by a random 0-20 % (jitter), so receivers that failed together are not all retried in
// the same second, and the whole schedule never ends sooner than its nominal sum.
export const JITTER = 0.2;

/** Attempts a delivery gets in all: the first one and a retry per schedule entry. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

/**
 * Milliseconds to wait after failed attempt number `attempt` (1 = the first), or null when that
 * was the last one.
 */
export function retryDelay(
  schedule: readonly number[],
  attempt: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER * random()));
}

/** The nominal time the schedule covers, in milliseconds. */
export function scheduleSpan(schedule: readonly number[]): number {
  return schedule.reduce((sum, delay) => sum + delay, 0);
}
