// The five limits of section 8 as data, the checks a request counts in and what counting one gives
// (CheckOutcome), the Store a limiter counts in, and counting in this process's memory with
// rate-limiter-flexible: the store without Redis, and the Redis store's fallback during an outage.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitConfig } from '../../config.js';
import type { RateLimitStoreState } from '../../metrics/registry.js';

const MINUTE = 60;
const DAY = 24 * 60 * 60;

/** The five limits of section 8; the name is also the middle part of the Redis key. */
export const LIMITS = {
  'key-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.keyPerMinute },
  'key-writes-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.keyWritesPerMinute },
  'key-day': { seconds: DAY, points: (limits: RateLimitConfig) => limits.keyPerDay },
  'company-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.companyPerMinute },
  'ip-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.ipPerMinute },
} as const;
export type LimitName = keyof typeof LIMITS;
export const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[];
/** The limits a request of a valid key counts in, in the order RateLimit-Policy names them. */
export const READ_LIMITS: LimitName[] = ['key-minute', 'key-day', 'company-minute'];
export const WRITE_LIMITS: LimitName[] = [...READ_LIMITS, 'key-writes-minute'];

export interface Check {
  limit: LimitName;
  id: string;
}

export interface CheckOutcome {
  limit: LimitName;
  points: number;
  res: RateLimiterRes;
  refused: boolean;
}

export type Limiters = Record<LimitName, RateLimiterMemory>;

/** Counts the checks in one store; rejects only when the store itself failed. */
export async function consumeAll(limiters: Limiters, checks: Check[]): Promise<CheckOutcome[]> {
  const settled = await Promise.allSettled(checks.map((check) => limiters[check.limit].consume(check.id)));
  return settled.map((result, index) => {
    const check = checks[index]!;
    const points = limiters[check.limit].points;
    if (result.status === 'fulfilled')
      return { limit: check.limit, points, res: result.value, refused: false };
    if (result.reason instanceof RateLimiterRes) {
      return { limit: check.limit, points, res: result.reason, refused: true };
    }
    throw result.reason;
  });
}

export function memoryLimiters(limits: RateLimitConfig): Limiters {
  const entries = LIMIT_NAMES.map((name) => {
    const limiter = new RateLimiterMemory({
      keyPrefix: name,
      points: LIMITS[name].points(limits),
      duration: LIMITS[name].seconds,
    });
    return [name, limiter] as const;
  });
  return Object.fromEntries(entries) as Limiters;
}

export interface Store {
  ready(): Promise<void>;
  consume(checks: Check[]): Promise<CheckOutcome[]>;
  where(): RateLimitStoreState;
  close(): Promise<void>;
}

export function memoryStore(limits: RateLimitConfig): Store {
  const limiters = memoryLimiters(limits);
  return {
    ready: async () => {},
    consume: (checks) => consumeAll(limiters, checks),
    where: () => 'memory',
    close: async () => {},
  };
}
