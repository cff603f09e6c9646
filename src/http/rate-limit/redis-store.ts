// Counting in Redis, shared by every instance: the store's states (starting, up, down), the
// fallback to this process's memory while Redis is unreachable with one probe at a time to bring
// it back, and the batching of the requests of one turn of the event loop into one script call,
// under a command timeout that a busy event loop does not trip. The client it is given is made by
// redisStore() (index.ts).
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitConfig } from '../../config.js';
import type { RateLimitStoreState } from '../../metrics/registry.js';
import {
  type Check,
  type CheckOutcome,
  consumeAll,
  LIMITS,
  type Limiters,
  memoryLimiters,
  type Store,
} from './limits.js';
import { CONSUME_SCRIPT, type LimitsClient } from './redis-script.js';

/** What the limiter logs with; the app passes its own (pino) logger. */
export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Longest wait for Redis to acknowledge QUIT when the limiter closes. */
const QUIT_TIMEOUT_MS = 1000;
/** While Redis is down, one request at most this often tries it again (the others use memory). */
const PROBE_INTERVAL_MS = 1000;

interface PendingConsume {
  checks: Check[];
  resolve(outcomes: CheckOutcome[]): void;
  reject(error: unknown): void;
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
export class RedisStore implements Store {
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
