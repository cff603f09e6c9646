// Shared by the rate-limit tests: apps with small limits on memory or on Redis (with a unique key
// namespace per app, so runs and projects never see each other's counts), a private
// redis-server that a test may kill, and a logger that remembers what it was told.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { API_PREFIX, type App, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import {
  createRateLimiter,
  type RateLimiter,
  type RateLimitLogger,
} from '../../src/http/rate-limit/index.js';
import { checkConformance } from './conformance.js';
import { GENEROUS_LIMITS, TEST_DOCS_URL } from './context.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { TEST_REDIS_URL } from './services.js';

export type Store = 'memory' | 'redis';

export function uniquePrefix(): string {
  return `partner-api-test:${randomBytes(6).toString('hex')}:rl`;
}

export interface LogEntry {
  level: 'warn' | 'info';
  msg: string;
  obj: object;
}

export function memoryLogger(): RateLimitLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    warn: (obj, msg) => entries.push({ level: 'warn', obj, msg }),
    info: (obj, msg) => entries.push({ level: 'info', obj, msg }),
  };
}

export interface LimitedApp {
  app: App;
  config: Config;
  limiter: RateLimiter;
  prefix: string;
  close(): Promise<void>;
}

export interface LimitedAppOptions {
  store: Store;
  database: TestDatabase;
  env?: Record<string, string>;
  /** Redis address when store is redis (default: the shared test Redis). */
  redisUrl?: string;
  /** Key namespace in Redis; give two apps the same one to share counts. */
  prefix?: string;
  logger?: RateLimitLogger;
  /** Longest wait for Redis before the app answers (the limiter's default otherwise). */
  startTimeoutMs?: number;
}

/** An app over an existing test database, with its own limiter built from the env given. */
export async function limitedApp(options: LimitedAppOptions): Promise<LimitedApp> {
  const redis = options.store === 'redis' ? { REDIS_URL: options.redisUrl ?? TEST_REDIS_URL } : {};
  const config = loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS, ...options.env, ...redis });
  const prefix = options.prefix ?? uniquePrefix();
  const limiter = createRateLimiter(config, options.logger, {
    keyPrefix: prefix,
    ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
  });
  const app = checkConformance(
    await buildApp({ config, database: options.database.handle, logger: false, rateLimiter: limiter }),
  );
  await app.ready();
  return {
    app,
    config,
    limiter,
    prefix,
    close: async () => {
      await app.close();
      await limiter.close();
    },
  };
}

/**
 * For a describe block: one test database, and `start(env)` building a limited app on it that is
 * closed when its test ends; the Redis counters of every app are deleted after the block.
 */
export function useLimitedApps(store: Store): {
  database(): TestDatabase;
  start(env: Record<string, string>): Promise<LimitedApp>;
} {
  let database: TestDatabase | null = null;
  const prefixes: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
    if (store === 'redis') for (const prefix of prefixes) await deleteRedisKeys(prefix);
  });
  const current = () => {
    if (!database) throw new Error('useLimitedApps: the database exists only inside tests');
    return database;
  };
  return {
    database: current,
    async start(env) {
      const limited = await limitedApp({ store, database: current(), env });
      prefixes.push(limited.prefix);
      onTestFinished(() => limited.close());
      return limited;
    },
  };
}

export interface SendOptions {
  key?: string;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export function get(app: App, path: string, options: SendOptions = {}): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const request: InjectOptions = { method: 'GET', url: `${API_PREFIX}${path}`, headers };
  if (options.remoteAddress) request.remoteAddress = options.remoteAddress;
  return app.inject(request);
}

/** A customer creation: a write (POST) with its own idempotency key. */
export function post(app: App, key: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `${API_PREFIX}/customers`,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': `rl-test-${randomBytes(8).toString('hex')}`,
    },
    payload: JSON.stringify({ name: 'Cliente Limitado' }),
  });
}

export function limitHeaders(res: LightMyRequestResponse): { limit: string; remaining: string } {
  return {
    limit: String(res.headers['x-ratelimit-limit']),
    remaining: String(res.headers['x-ratelimit-remaining']),
  };
}

/** The IETF draft's headers of a response: RateLimit-Policy and RateLimit, as sent. */
export function draftHeaders(res: LightMyRequestResponse): { policy: string; rateLimit: string } {
  return {
    policy: String(res.headers['ratelimit-policy']),
    rateLimit: String(res.headers.ratelimit),
  };
}

/** Deletes every Redis key of a namespace (the per-day counters would stay for a day). */
export async function deleteRedisKeys(prefix: string, url: string = TEST_REDIS_URL): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 0 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** A redis-server of this test alone, on its own port, without persistence. */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    if (!this.child?.pid) throw new Error('redis-server is not running');
    return this.child.pid;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
      child.once('error', reject);
    });
    exited.catch(() => {});
    const deadline = Date.now() + 10_000;
    for (;;) {
      const client = new Redis(this.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      });
      client.on('error', () => {});
      try {
        await Promise.race([client.connect().then(() => client.ping()), exited]);
        return;
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        client.disconnect();
      }
    }
  }

  /** Kills the server outright (SIGKILL), as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = null;
  }

  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    process.kill(this.pid, signal);
  }

  client(): Redis {
    const client = new Redis(this.url, { maxRetriesPerRequest: 0 });
    client.on('error', () => {});
    return client;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
