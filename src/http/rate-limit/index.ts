// Rate limits of section 8 of the contract: per key (minute, writes per minute, day), per company
// (minute, all its keys together) and per client IP for requests without a valid key (minute).
//
// Counting: fixed windows opened by a key's first request (rate-limiter-flexible's in memory, one
// Lua script with the same steps in Redis). Every request counts in EVERY limit that applies to
// it, also when one of them refuses it ("refused attempts still count"): a refused write still
// uses one request of the key's minute, day and company budgets. All applicable limits are
// consumed together for each request: in Redis, in one round trip.
//
// The per-IP limit is for requests without a valid key only: it never refuses a valid key
// (decisions.md, order of checks, step 4). Floods of bad keys stay cheap because the key cache
// remembers keys known to be bad (src/keys/key-cache.ts), not because good keys are refused.
//
// Responses: the contract's X-RateLimit-Limit / -Remaining (the tightest limit), and the IETF
// draft's RateLimit-Policy (every limit that counted the request, with its quota and window) and
// RateLimit (the tightest one's remaining requests and seconds until its window resets).
//
// Storage: process memory, or Redis when REDIS_URL is set (shared exactly by all instances),
// under a namespace of the installation (src/db/installation.ts) or REDIS_KEY_PREFIX. An instance
// waits for Redis before it answers (ready(), at most START_TIMEOUT_MS): while it connects nothing
// is counted in memory, so instances share exact counts from their very first request. When
// Redis cannot be reached, every instance falls back to its own in-memory counters (logged once
// per outage, "degraded" on /readyz), and goes back to Redis by itself as soon as it answers
// again. A Redis failure is never a 429 or a 500, and never makes a request wait longer than the
// command timeout (250 ms, measured so that a busy event loop is not taken for a slow Redis: see
// sendBatch in redis-store.ts). See docs/rate-limits.md.
//
// The parts, in the order to read them; this file holds the limiter's interface and options, the
// Redis client's settings (redisStore) and createRateLimiter, which puts the parts together:
//   limits.ts        the five limits as data, the checks and their outcomes, the Store, and
//                    counting in memory (no Redis, or Redis unreachable)
//   headers.ts       the headers of an answer, and the 429
//   redis-script.ts  the Lua script that counts a batch in one round trip
//   redis-store.ts   counting in Redis: outage, fallback, probe and return; batching under a timeout
import { Redis } from 'ioredis';
import type { Config, RateLimitConfig } from '../../config.js';
import type { RateLimitStoreState } from '../../metrics/registry.js';
import { keyHeaders, policyItem, policyOf, rateLimitHeader, refusal, tightest } from './headers.js';
import {
  type Check,
  LIMIT_NAMES,
  LIMITS,
  type LimitName,
  memoryStore,
  READ_LIMITS,
  type Store,
  WRITE_LIMITS,
} from './limits.js';
import type { LimitsClient } from './redis-script.js';
import { type RateLimitLogger, RedisStore } from './redis-store.js';

export type { RateLimitLogger } from './redis-store.js';

export interface KeyUsage {
  apiKeyId: number;
  companyId: number;
  isWrite: boolean;
}

export interface RateLimiter {
  /**
   * Resolves once the store can count: at once in memory; with Redis, when it is connected, or
   * after START_TIMEOUT_MS without it (then logged, and counted in memory until it is back).
   * The app waits for it before it answers anything.
   */
  ready(): Promise<void>;
  /**
   * Counts a request without a valid key from this IP; returns the RateLimit headers of the
   * answer (the 401); throws `rate_limit_exceeded` past the limit.
   */
  consumeAnonymous(ip: string): Promise<Record<string, string>>;
  /** Counts a request of a valid key; returns headers for the response; throws past a limit. */
  consumeKey(usage: KeyUsage): Promise<Record<string, string>>;
  /** Where it counts now (the operations server reports it: Redis down is "degraded"). */
  storeState(): RateLimitStoreState;
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  /**
   * Namespace of the Redis keys: `<keyPrefix>:<limit>:<id>`. The app passes the installation's
   * (src/db/installation.ts) or REDIS_KEY_PREFIX; tests use a unique one per run.
   */
  keyPrefix?: string;
  /** Longest wait for one Redis round trip before the request is counted in memory instead. */
  commandTimeoutMs?: number;
  /** Longest wait of ready() for the first connection to Redis. */
  startTimeoutMs?: number;
}

export const DEFAULT_KEY_PREFIX = 'partner-api:rl';
const DEFAULT_COMMAND_TIMEOUT_MS = 250;
/**
 * One connection attempt. Generous: on a busy machine a start-up that holds the event loop for a
 * second would otherwise time out an attempt whose socket had long connected.
 */
const CONNECT_TIMEOUT_MS = 3000;
/** How long a starting instance waits for Redis before it counts in memory (and says so). */
export const START_TIMEOUT_MS = 5000;

function redisStore(
  url: string,
  limits: RateLimitConfig,
  options: RateLimiterOptions,
  logger: RateLimitLogger | undefined,
): Store {
  const client = new Redis(url, {
    // Never queue a command while disconnected, never retry one: a request is counted in memory
    // instead of waiting for Redis.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Keep reconnecting forever, at most a second apart.
    retryStrategy: (times) => Math.min(times * 100, 1000),
    // No enableAutoPipelining: it holds new commands back while a batch is unanswered, which
    // doubles the wait on a frozen Redis. Commands are still pipelined on the one connection.
  });
  return new RedisStore(
    client as LimitsClient,
    limits,
    options.keyPrefix ?? DEFAULT_KEY_PREFIX,
    logger,
    options.startTimeoutMs ?? START_TIMEOUT_MS,
    options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
  );
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are the same client. */
function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice('::ffff:'.length) : ip;
}

export function createRateLimiter(
  config: Config,
  logger?: RateLimitLogger,
  options: RateLimiterOptions = {},
): RateLimiter {
  const limits = config.rateLimits;
  const store = config.redisUrl ? redisStore(config.redisUrl, limits, options, logger) : memoryStore(limits);
  // What the headers of an admitted request say of the configuration, made once (building them on
  // each request was half of what this step allocated): each limit's quota, and the policy of a
  // read and of a write.
  const quotaTexts = Object.fromEntries(
    LIMIT_NAMES.map((name) => [name, String(LIMITS[name].points(limits))]),
  ) as Record<LimitName, string>;
  const policyOfNames = (names: LimitName[]) =>
    names.map((name) => policyItem(name, LIMITS[name].points(limits))).join(', ');
  const policies = { read: policyOfNames(READ_LIMITS), write: policyOfNames(WRITE_LIMITS) };

  return {
    ready: () => store.ready(),

    async consumeAnonymous(ip) {
      const outcomes = await store.consume([{ limit: 'ip-minute', id: normalizeIp(ip) }]);
      if (outcomes.some((outcome) => outcome.refused)) throw refusal(outcomes);
      const shown = tightest(outcomes);
      return { 'RateLimit-Policy': policyOf(outcomes), RateLimit: rateLimitHeader(shown) };
    },

    async consumeKey({ apiKeyId, companyId, isWrite }) {
      const key = String(apiKeyId);
      const company = String(companyId);
      const checks = (isWrite ? WRITE_LIMITS : READ_LIMITS).map(
        (limit): Check => ({ limit, id: limit === 'company-minute' ? company : key }),
      );
      const outcomes = await store.consume(checks);
      if (outcomes.some((outcome) => outcome.refused)) throw refusal(outcomes);
      const shown = tightest(outcomes);
      return keyHeaders(shown, quotaTexts[shown.limit], isWrite ? policies.write : policies.read);
    },

    storeState: () => store.where(),
    close: () => store.close(),
  };
}
