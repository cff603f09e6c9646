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
// sendBatch). See docs/rate-limits.md.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config, RateLimitConfig } from '../../config.js';
import { ApiError } from '../../errors.js';
import { metrics, type RateLimitStoreState } from '../../metrics/registry.js';

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

/** What the limiter logs with; the app passes its own (pino) logger. */
export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
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
/** Longest wait for Redis to acknowledge QUIT when the limiter closes. */
const QUIT_TIMEOUT_MS = 1000;
/** How long a starting instance waits for Redis before it counts in memory (and says so). */
export const START_TIMEOUT_MS = 5000;
/** While Redis is down, one request at most this often tries it again (the others use memory). */
const PROBE_INTERVAL_MS = 1000;

const MINUTE = 60;
const DAY = 24 * 60 * 60;

/** The five limits of section 8; the name is also the middle part of the Redis key. */
const LIMITS = {
  'key-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.keyPerMinute },
  'key-writes-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.keyWritesPerMinute },
  'key-day': { seconds: DAY, points: (limits: RateLimitConfig) => limits.keyPerDay },
  'company-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.companyPerMinute },
  'ip-minute': { seconds: MINUTE, points: (limits: RateLimitConfig) => limits.ipPerMinute },
} as const;
type LimitName = keyof typeof LIMITS;
const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[];
/** The limits a request of a valid key counts in, in the order RateLimit-Policy names them. */
const READ_LIMITS: LimitName[] = ['key-minute', 'key-day', 'company-minute'];
const WRITE_LIMITS: LimitName[] = [...READ_LIMITS, 'key-writes-minute'];

interface Check {
  limit: LimitName;
  id: string;
}

interface CheckOutcome {
  limit: LimitName;
  points: number;
  res: RateLimiterRes;
  refused: boolean;
}

type Limiters = Record<LimitName, RateLimiterMemory>;

/**
 * The fixed windows of every limit of the requests of one batch, counted in one round trip
 * (rate-limiter-flexible would send one script per limit and request). Per counter, the same steps
 * as that library's own script: a window opens at the first request and lasts its seconds; the
 * answer is the count and the milliseconds left. A counter that several requests of the batch
 * share is raised once by their number: the script runs atomically, so the k-th of them gets the
 * count before the batch plus k, exactly what k increments of one would have given it (see
 * sendBatch). KEYS: the distinct counters; ARGV: each counter's window in seconds, then each
 * counter's increment. Plain Redis only: the counters may live in different slots of a Redis
 * Cluster.
 */
const CONSUME_SCRIPT = `
local answer = {}
local count = #KEYS
for index, key in ipairs(KEYS) do
  local seconds = ARGV[index]
  redis.call('set', key, 0, 'EX', seconds, 'NX')
  local consumed = redis.call('incrby', key, ARGV[count + index])
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, seconds)
    ttl = 1000 * seconds
  end
  answer[#answer + 1] = consumed
  answer[#answer + 1] = ttl
end
return answer`;

interface PendingConsume {
  checks: Check[];
  resolve(outcomes: CheckOutcome[]): void;
  reject(error: unknown): void;
}

/** The ioredis client with the script above defined as a command. */
type LimitsClient = Redis & {
  partnerApiConsume(numberOfKeys: number, ...keysSecondsIncrements: string[]): Promise<number[]>;
};

/** Counts the checks in one store; rejects only when the store itself failed. */
async function consumeAll(limiters: Limiters, checks: Check[]): Promise<CheckOutcome[]> {
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

function memoryLimiters(limits: RateLimitConfig): Limiters {
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

interface Store {
  ready(): Promise<void>;
  consume(checks: Check[]): Promise<CheckOutcome[]>;
  where(): RateLimitStoreState;
  close(): Promise<void>;
}

function memoryStore(limits: RateLimitConfig): Store {
  const limiters = memoryLimiters(limits);
  return {
    ready: async () => {},
    consume: (checks) => consumeAll(limiters, checks),
    where: () => 'memory',
    close: async () => {},
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Counts in Redis while it answers; otherwise in this process's memory. `up`: Redis is used.
 * `down`: memory is used, and one request per PROBE_INTERVAL_MS tries Redis again (Redis
 * announcing `ready` after a reconnect brings it back at once). The transitions are what is
 * logged, so an outage gives one warning and one recovery message, whatever the traffic.
 */
class RedisStore implements Store {
  private state: 'starting' | 'up' | 'down' = 'starting';
  private retryAt = 0;
  private probing = false;
  private lastError: unknown = null;
  private closing = false;
  private readonly started: Promise<void>;
  private readonly fallback: Limiters;
  /** Requests waiting for the next script call (see consumeInRedis). */
  private batch: PendingConsume[] | null = null;

  constructor(
    private readonly client: LimitsClient,
    private readonly limits: RateLimitConfig,
    private readonly keyPrefix: string,
    private readonly logger: RateLimitLogger | undefined,
    startTimeoutMs: number,
    private readonly commandTimeoutMs: number,
  ) {
    client.defineCommand('partnerApiConsume', { lua: CONSUME_SCRIPT });
    this.fallback = memoryLimiters(limits);

    // Nothing is counted while the first connection is being made: requests (and the app, which
    // waits for ready() before it answers) wait for it, at most startTimeoutMs. Failed attempts
    // meanwhile are retried; only when the time is up does this instance count in memory.
    this.started = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        if (this.state === 'starting') {
          this.markDown(this.lastError ?? new Error(`no connection within ${startTimeoutMs} ms`));
        }
        resolve();
      }, startTimeoutMs);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      client.once('ready', done);
      client.once('end', done);
    });
    client.on('ready', () => this.markUp());
    // ioredis emits an error per failed reconnection attempt: remembered, not logged each time.
    client.on('error', (error: unknown) => {
      this.lastError = error;
    });
    client.on('close', () => {
      if (this.state === 'up' && !this.closing)
        this.markDown(this.lastError ?? new Error('connection to Redis closed'));
    });
  }

  ready(): Promise<void> {
    return this.started;
  }

  private markUp(): void {
    if (this.state === 'up') return;
    const recovered = this.state === 'down';
    this.state = 'up';
    this.lastError = null;
    if (recovered) this.logger?.info({}, 'rate limits: Redis reachable again, shared counting restored');
  }

  private markDown(error: unknown): void {
    this.retryAt = Date.now() + PROBE_INTERVAL_MS;
    if (this.state === 'down') return;
    this.state = 'down';
    this.logger?.warn(
      { err: describeError(error) },
      'rate limits: Redis unreachable, counting in this instance only until it is back',
    );
  }

  /** Whether this request goes to Redis; while down, only one probe at a time does. */
  private tryRedis(): boolean {
    if (this.client.status !== 'ready') {
      if (this.state !== 'down') this.markDown(this.lastError ?? new Error(`Redis ${this.client.status}`));
      return false;
    }
    // Up, or starting with the connection ready but not yet announced (ioredis emits `ready` on
    // the next tick): Redis counts.
    if (this.state !== 'down') {
      this.markUp();
      return true;
    }
    if (this.probing || Date.now() < this.retryAt) return false;
    this.probing = true;
    return true;
  }

  async consume(checks: Check[]): Promise<CheckOutcome[]> {
    if (this.state === 'starting') await this.started;
    if (this.tryRedis()) {
      const wasProbe = this.state === 'down';
      try {
        const outcomes = await this.consumeInRedis(checks);
        this.markUp();
        return outcomes;
      } catch (error) {
        this.markDown(error);
      } finally {
        if (wasProbe) this.probing = false;
      }
    }
    return consumeAll(this.fallback, checks);
  }

  /**
   * The counters of a request, sent with those of every other request that reached this point in
   * the same turn of the event loop: one script call, one round trip for all of them (a write to
   * Redis per request was 7% of a read's CPU). Batches never wait for each other, so a frozen Redis
   * costs each request at most one command timeout.
   */
  private consumeInRedis(checks: Check[]): Promise<CheckOutcome[]> {
    return new Promise((resolve, reject) => {
      if (!this.batch) {
        this.batch = [];
        setImmediate(() => this.sendBatch());
      }
      this.batch.push({ checks, resolve, reject });
    });
  }

  private sendBatch(): void {
    const batch = this.batch ?? [];
    this.batch = null;
    // Each distinct counter once, raised by how many checks of the batch it has; each check learns
    // its own place among them (1 for the first in batch order, 2 for the next...).
    const counters = new Map<string, { index: number; seconds: number; increment: number }>();
    const places: { counter: number; place: number }[][] = batch.map((entry) =>
      entry.checks.map((check) => {
        const key = `${this.keyPrefix}:${check.limit}:${check.id}`;
        let counter = counters.get(key);
        if (!counter) {
          counter = { index: counters.size, seconds: LIMITS[check.limit].seconds, increment: 0 };
          counters.set(key, counter);
        }
        counter.increment += 1;
        return { counter: counter.index, place: counter.increment };
      }),
    );
    const keys = [...counters.keys()];
    const seconds = [...counters.values()].map((counter) => String(counter.seconds));
    const increments = [...counters.values()].map((counter) => String(counter.increment));
    const totals = [...counters.values()].map((counter) => counter.increment);
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const answered = (answer: number[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      batch.forEach((entry, index) => {
        entry.resolve(
          entry.checks.map((check, at) => {
            const { counter, place } = places[index]![at]!;
            const consumed = Number(answer[2 * counter]) - totals[counter]! + place;
            return this.outcome(check, consumed, Number(answer[2 * counter + 1]));
          }),
        );
      });
    };
    const failed = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const entry of batch) entry.reject(error);
    };
    // The command timeout, measured so that a busy process is not mistaken for a slow Redis: when
    // the event loop was held up past the timeout, the answer may already be waiting on the
    // socket, and it is read in this turn's poll phase, before setImmediate runs. Counting such a
    // request in memory as well as in Redis would let one request too many through.
    timer = setTimeout(() => {
      setImmediate(() => failed(new Error('Command timed out')));
    }, this.commandTimeoutMs);
    this.client.partnerApiConsume(keys.length, ...keys, ...seconds, ...increments).then(answered, failed);
  }

  /** The outcome of one check: its counter's count with this request, and the ms left of its window. */
  private outcome(check: Check, consumed: number, msLeft: number): CheckOutcome {
    const points = LIMITS[check.limit].points(this.limits);
    const res = new RateLimiterRes(Math.max(points - consumed, 0), msLeft, consumed, consumed === 1);
    return { limit: check.limit, points, res, refused: consumed > points };
  }

  where(): RateLimitStoreState {
    return this.state === 'down' ? 'redis-fallback' : 'redis';
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.client.status === 'ready') {
      // A polite QUIT, but never a wait on a Redis that does not answer.
      let timer: NodeJS.Timeout | undefined;
      const givenUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, QUIT_TIMEOUT_MS);
      });
      await Promise.race([this.client.quit().catch(() => {}), givenUp]);
      clearTimeout(timer);
    }
    this.client.disconnect();
  }
}

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

/** Seconds until the window of this counter opens again, whole and at least 1. */
function secondsLeft(outcome: CheckOutcome): number {
  return Math.max(1, Math.ceil(outcome.res.msBeforeNext / 1000));
}

/** One item of `RateLimit-Policy`: the limit, its quota and its window in seconds. */
function policyItem(limit: LimitName, points: number): string {
  return `"${limit}";q=${points};w=${LIMITS[limit].seconds}`;
}

/** `RateLimit`: what is left of one limit and the seconds until its window resets. */
function rateLimitHeader(shown: CheckOutcome): string {
  return `"${shown.limit}";r=${shown.res.remainingPoints};t=${secondsLeft(shown)}`;
}

/** `RateLimit-Policy` of the limits that counted a request. */
function policyOf(outcomes: CheckOutcome[]): string {
  return outcomes.map((outcome) => policyItem(outcome.limit, outcome.points)).join(', ');
}

/**
 * The headers of a request a key made, and of every 429: the contract's `X-RateLimit-Limit` (the size of the shown
 * limit, `quota`) and `X-RateLimit-Remaining`, and the IETF draft's (draft-ietf-httpapi-ratelimit-
 * headers, structured fields): `RateLimit-Policy` names every limit that counted the request with
 * its quota and window in seconds, `"key-minute";q=60;w=60, "key-day";q=5000;w=86400, ...`;
 * `RateLimit` says what is left of the shown one and when its window resets,
 * `"key-minute";r=59;t=60`. An anonymous request that passes gets the last two only.
 */
function keyHeaders(shown: CheckOutcome, quota: string, policy: string): Record<string, string> {
  return {
    'X-RateLimit-Limit': quota,
    'X-RateLimit-Remaining': String(shown.res.remainingPoints),
    'RateLimit-Policy': policy,
    RateLimit: rateLimitHeader(shown),
  };
}

/**
 * The 429 for a request some limit refused. `Retry-After` is the time until the same request
 * would pass: until every counter that is full (it refused this one, or this one used its last
 * point) has reset, as the retry counts in all of them again. The X-RateLimit headers and
 * `RateLimit` are those of the refusing limit that resets last.
 */
function refusal(outcomes: CheckOutcome[]): ApiError {
  for (const outcome of outcomes) if (outcome.refused) metrics.rateLimitRefused(outcome.limit);
  const full = outcomes.filter((outcome) => outcome.res.consumedPoints >= outcome.points);
  const retryAfter = Math.max(...full.map(secondsLeft));
  const refused = outcomes
    .filter((outcome) => outcome.refused)
    .reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
  return new ApiError('rate_limit_exceeded', {
    headers: {
      'Retry-After': String(retryAfter),
      ...keyHeaders(refused, String(refused.points), policyOf(outcomes)),
    },
  });
}

/** The limit with the fewest requests left (on a tie, the smaller one). */
function tightest(outcomes: CheckOutcome[]): CheckOutcome {
  return outcomes.reduce((a, b) => {
    if (b.res.remainingPoints !== a.res.remainingPoints) {
      return b.res.remainingPoints < a.res.remainingPoints ? b : a;
    }
    return b.points < a.points ? b : a;
  });
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
