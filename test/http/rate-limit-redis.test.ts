// Rate limits in Redis: the key layout, two instances sharing one count, and Redis failing under
// traffic (killed, frozen, absent at start): the API keeps answering from per-instance counters,
// logs once per outage, never waits long, and counts in Redis again once it is back. The failure
// tests use a redis-server of their own on a free port; the shared one is never touched.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { API_PREFIX } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { ApiError } from '../../src/errors.js';
import { createRateLimiter } from '../../src/http/rate-limit/index.js';
import { createApiKey } from '../../src/operations/api-keys.js';
import { asOperator, createTenant, GENEROUS_LIMITS, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import {
  deleteRedisKeys,
  get,
  type LimitedApp,
  type LimitedAppOptions,
  limitedApp,
  limitHeaders,
  memoryLogger,
  PrivateRedis,
  post,
  sleep,
  uniquePrefix,
} from '../helpers/rate-limit.js';
import { freePort } from '../helpers/server-process.js';
import { TEST_REDIS_URL } from '../helpers/services.js';

let database: TestDatabase;
const sharedPrefixes: string[] = [];
const privateServers: PrivateRedis[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const server of privateServers) await server.kill();
  for (const prefix of sharedPrefixes) await deleteRedisKeys(prefix);
  await database.close();
});

async function start(options: Omit<LimitedAppOptions, 'store' | 'database'>): Promise<LimitedApp> {
  const limited = await limitedApp({ store: 'redis', database, ...options });
  if (!options.redisUrl) sharedPrefixes.push(limited.prefix);
  onTestFinished(() => limited.close());
  return limited;
}

async function privateRedis(): Promise<PrivateRedis> {
  const server = new PrivateRedis(await freePort());
  privateServers.push(server);
  return server;
}

/** Polls until `condition` holds; bounded generously, so a loaded machine only makes it slower. */
async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

function count(client: Redis, key: string): Promise<number> {
  return client.get(key).then((value) => Number(value ?? 0));
}

interface Sample {
  phase: string;
  status: number;
  ms: number;
}

/** Requests back to back from a few concurrent clients, until stopped. */
function traffic(app: LimitedApp['app'], key: string, clients = 3) {
  const samples: Sample[] = [];
  let phase = 'redis up';
  let running = true;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const startedAt = performance.now();
      const res = await get(app, '/ping', { key });
      samples.push({ phase, status: res.statusCode, ms: performance.now() - startedAt });
      // PGlite answers in microtasks: let timers (and the test's checks) run between requests.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
  return {
    samples,
    phase(name: string) {
      phase = name;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
    of(name: string) {
      return samples.filter((sample) => sample.phase === name);
    },
  };
}

function slowest(samples: Sample[]): number {
  return Math.max(...samples.map((sample) => sample.ms));
}

describe('rate limits in Redis', () => {
  it('keeps namespaced counters with the windows of the limits; Retry-After is the rest of the window', async () => {
    const limited = await start({ env: { RATE_LIMIT_KEY_PER_MINUTE: '3' } });
    const redis = new Redis(TEST_REDIS_URL);
    onTestFinished(() => redis.disconnect());
    const tenant = await createTenant(database.handle.db);
    const id = tenant.apiKey.id;
    // Windows are measured from the counters' creation, whatever the time the steps below take.
    const createdBefore = Date.now();
    expect((await post(limited.app, tenant.key)).statusCode).toBe(201);
    expect((await get(limited.app, '/ping', { remoteAddress: '192.0.2.44' })).statusCode).toBe(401);

    const p = limited.prefix;
    const keys = (await redis.keys(`${p}:*`)).sort();
    expect(keys).toEqual(
      [
        `${p}:company-minute:${tenant.companyId}`,
        `${p}:ip-minute:192.0.2.44`,
        `${p}:key-day:${id}`,
        `${p}:key-minute:${id}`,
        `${p}:key-writes-minute:${id}`,
      ].sort(),
    );
    const left = (window: number) => window - (Date.now() - createdBefore);
    for (const name of ['company-minute', 'key-minute', 'key-writes-minute']) {
      const ttl = await redis.pttl(`${p}:${name}:${name === 'company-minute' ? tenant.companyId : id}`);
      expect(ttl).toBeGreaterThanOrEqual(left(60_000));
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    expect(await redis.pttl(`${p}:key-day:${id}`)).toBeGreaterThanOrEqual(left(86_400_000));

    await get(limited.app, '/ping', { key: tenant.key });
    await get(limited.app, '/ping', { key: tenant.key });
    const refusedAt = Date.now();
    const refused = await get(limited.app, '/ping', { key: tenant.key });
    expect(refused.statusCode).toBe(429);
    const ttl = await redis.pttl(`${p}:key-minute:${id}`);
    const sinceRefused = Date.now() - refusedAt;
    // Retry-After was the rest of the window when the answer was made: between the rest now and
    // the rest now plus the time since (each rounded up to whole seconds).
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil(ttl / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((ttl + sinceRefused) / 1000) + 1);
    expect(await count(redis, `${p}:key-minute:${id}`)).toBe(4);
  });

  it('two instances over one database and one Redis enforce one shared limit', async () => {
    const prefix = uniquePrefix();
    const env = {
      RATE_LIMIT_KEY_PER_MINUTE: '6',
      RATE_LIMIT_COMPANY_PER_MINUTE: '10',
      RATE_LIMIT_IP_PER_MINUTE: '3',
    };
    const a = await start({ env, prefix });
    const b = await start({ env, prefix });
    const tenant = await createTenant(database.handle.db);
    const second = await createApiKey(asOperator(database.handle.db), {
      companyId: tenant.companyId,
      days: 30,
    });

    // One key, alternating between the instances: 6 pass, not 12.
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await get(i % 2 === 0 ? a.app : b.app, '/ping', { key: tenant.key });
      expect(res.statusCode).toBe(200);
      remaining.push(limitHeaders(res).remaining);
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
    expect((await get(a.app, '/ping', { key: tenant.key })).statusCode).toBe(429);
    expect((await get(b.app, '/ping', { key: tenant.key })).statusCode).toBe(429);

    // The company has used 8 of 10 (refused attempts count): the other key gets 2, on either instance.
    expect((await get(b.app, '/ping', { key: second.key })).statusCode).toBe(200);
    expect((await get(a.app, '/ping', { key: second.key })).statusCode).toBe(200);
    const company = await get(b.app, '/ping', { key: second.key });
    expect(company.statusCode).toBe(429);
    expect(limitHeaders(company)).toEqual({ limit: '10', remaining: '0' });

    // The per-IP limit is shared as well.
    const ip = { remoteAddress: '198.51.100.99' };
    for (const app of [a.app, b.app, a.app]) expect((await get(app, '/ping', ip)).statusCode).toBe(401);
    expect((await get(b.app, '/ping', ip)).statusCode).toBe(429);
  });
});

describe('rate limits in Redis under concurrency', () => {
  it('requests sent together share script calls and still get exactly their own counts', async () => {
    const limited = await start({
      env: { RATE_LIMIT_KEY_PER_MINUTE: '7', RATE_LIMIT_COMPANY_PER_MINUTE: '1000' },
    });
    const tenants = [await createTenant(database.handle.db), await createTenant(database.handle.db)];
    // 12 requests per key at once, both keys interleaved: every request is in flight together.
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        get(limited.app, '/ping', { key: tenants[index % 2]!.key }).then((res) => ({ index, res })),
      ),
    );
    for (const [which] of tenants.entries()) {
      const own = results.filter(({ index }) => index % 2 === which).map(({ res }) => res);
      expect(own.filter((res) => res.statusCode === 200)).toHaveLength(7);
      expect(own.filter((res) => res.statusCode === 429)).toHaveLength(5);
      const remaining = own
        .filter((res) => res.statusCode === 200)
        .map((res) => Number(limitHeaders(res).remaining))
        .sort((a, b) => b - a);
      expect(remaining).toEqual([6, 5, 4, 3, 2, 1, 0]);
    }
  });
});

/** 60 requests with bad keys sent at once over real HTTP, alternating between the given servers. */
async function badKeyBurst(urls: string[], count = 60): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      fetch(`${urls[index % urls.length]}${API_PREFIX}/ping`, {
        headers: { authorization: `Bearer svc_sk_live_${randomBytes(24).toString('hex')}` },
      }).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      }),
    ),
  );
  return answers;
}

async function listening(limited: LimitedApp): Promise<string> {
  await limited.app.listen({ host: '127.0.0.1', port: 0 });
  const address = limited.app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

describe('per-IP limit across instances, exact from the first request', () => {
  const LIMIT_30 =
    'contract section 8 "Requests per minute without a valid key, per IP: 30": of 60 concurrent bad keys across two instances exactly 30 get 401';

  it(`${LIMIT_30}, sent the moment both instances answer`, async () => {
    const prefix = uniquePrefix();
    const env = { RATE_LIMIT_IP_PER_MINUTE: '30' };
    const logger = memoryLogger();
    const [a, b] = await Promise.all([start({ env, prefix, logger }), start({ env, prefix, logger })]);
    const statuses = await badKeyBurst([await listening(a), await listening(b)]);
    expect(statuses.filter((status) => status === 401)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
    expect(logger.entries).toEqual([]);
  });

  it(`${LIMIT_30}, also when Redis comes up only after the instances started (nothing counted alone)`, async () => {
    const server = await privateRedis();
    const logger = memoryLogger();
    const prefix = uniquePrefix();
    const options = { redisUrl: server.url, env: { RATE_LIMIT_IP_PER_MINUTE: '30' }, prefix, logger };
    // Both instances start while Redis is not there yet; they wait for it before answering.
    const starting = Promise.all([start(options), start(options)]);
    await sleep(1500);
    await server.start();
    const [a, b] = await starting;
    expect([a.limiter.storeState(), b.limiter.storeState()]).toEqual(['redis', 'redis']);
    const statuses = await badKeyBurst([await listening(a), await listening(b)]);
    expect(statuses.filter((status) => status === 401)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
    // Never counted in memory: nothing to warn about.
    expect(logger.entries).toEqual([]);
  });
});

describe('a busy process is not a slow Redis', () => {
  it('the 31st request is refused even when the event loop was held up past the command timeout while Redis answered', async () => {
    const prefix = uniquePrefix();
    sharedPrefixes.push(prefix);
    const config = loadConfig({
      ...GENEROUS_LIMITS,
      RATE_LIMIT_IP_PER_MINUTE: '30',
      REDIS_URL: TEST_REDIS_URL,
    });
    const logger = memoryLogger();
    const first = createRateLimiter(config, logger, { keyPrefix: prefix });
    const second = createRateLimiter(config, logger, { keyPrefix: prefix });
    onTestFinished(() => Promise.all([first.close(), second.close()]).then(() => {}));
    await Promise.all([first.ready(), second.ready()]);
    for (let i = 0; i < 30; i++) await first.consumeAnonymous('192.0.2.31');

    // The 31st, on the other instance: its script goes out, then this process is busy for longer
    // than the 250 ms command timeout while Redis answers.
    const thirtyFirst = second.consumeAnonymous('192.0.2.31').then(
      () => 'passed',
      (error: unknown) => (error as ApiError).code,
    );
    await new Promise((resolve) => setImmediate(resolve));
    const busyUntil = Date.now() + 600;
    while (Date.now() < busyUntil) {
      // a long synchronous task (a big JSON, a slow regex, a stalled VM)
    }
    expect(await thirtyFirst).toBe('rate_limit_exceeded');
    expect(logger.entries).toEqual([]);
    expect(second.storeState()).toBe('redis');
  });
});

describe('rate limits when Redis fails', () => {
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await createTenant(database.handle.db);
  });

  it('keeps serving when Redis is killed under traffic, logs once, and counts in Redis again after a restart', async () => {
    const server = await privateRedis();
    await server.start();
    const logger = memoryLogger();
    const limited = await start({ redisUrl: server.url, logger });
    const redis = server.client();
    onTestFinished(() => redis.disconnect());
    const counter = `${limited.prefix}:key-minute:${tenant.apiKey.id}`;

    const load = traffic(limited.app, tenant.key);
    try {
      await waitFor(() => load.samples.length >= 30);
      expect(await count(redis, counter)).toBeGreaterThan(0);

      await server.kill();
      load.phase('redis down');
      await waitFor(() => load.of('redis down').length >= 100);

      await server.start();
      load.phase('redis restarted');
      await waitFor(() => logger.entries.some((entry) => entry.level === 'info'));
      // A fresh server without persistence: the counter starts again from this traffic.
      const first = await count(redis, counter);
      await waitFor(async () => (await count(redis, counter)) >= first + 20);
    } finally {
      await load.stop();
    }

    const statuses = new Set(load.samples.map((sample) => sample.status));
    expect([...statuses]).toEqual([200]);
    expect(load.of('redis down').length).toBeGreaterThanOrEqual(100);
    // A request that waited for Redis would wait for the whole outage: bounded far below it, and
    // far above what a loaded machine adds to a request.
    expect(slowest(load.of('redis down'))).toBeLessThan(5000);
    expect(logger.entries.map((entry) => [entry.level, entry.msg])).toEqual([
      ['warn', 'rate limits: Redis unreachable, counting in this instance only until it is back'],
      ['info', 'rate limits: Redis reachable again, shared counting restored'],
    ]);
    console.info(
      `Redis killed: ${load.samples.length} requests, all 200; slowest while down ${slowest(load.of('redis down')).toFixed(1)} ms, ` +
        `slowest overall ${slowest(load.samples).toFixed(1)} ms`,
    );
  });

  it('does not hang on a Redis that stops answering (frozen), and resumes when it answers again', async () => {
    const server = await privateRedis();
    await server.start();
    const logger = memoryLogger();
    const limited = await start({ redisUrl: server.url, logger });
    const redis = server.client();
    onTestFinished(() => redis.disconnect());
    const counter = `${limited.prefix}:key-minute:${tenant.apiKey.id}`;

    const load = traffic(limited.app, tenant.key);
    let frozenAt = 0;
    try {
      await waitFor(() => load.samples.length >= 30);
      server.signal('SIGSTOP');
      frozenAt = Date.now();
      load.phase('redis frozen');
      await waitFor(() => load.of('redis frozen').length >= 100 && Date.now() - frozenAt > 1500);
      server.signal('SIGCONT');
      load.phase('redis answering');
      await waitFor(() => logger.entries.some((entry) => entry.level === 'info'));
      const before = await count(redis, counter);
      await waitFor(async () => (await count(redis, counter)) >= before + 20);
    } finally {
      await load.stop();
    }

    expect([...new Set(load.samples.map((sample) => sample.status))]).toEqual([200]);
    const frozen = load.of('redis frozen');
    // Only requests caught in flight, and one probe a second, wait for the 250 ms command timeout:
    // compared with the share of slow requests while Redis answered (the machine's own slowness).
    const slowShare = (samples: Sample[]) =>
      samples.filter((sample) => sample.ms >= 200).length / samples.length;
    expect(slowest(frozen)).toBeLessThan(5000);
    expect(slowShare(frozen)).toBeLessThan(slowShare(load.of('redis up')) + 0.25);
    expect(logger.entries.map((entry) => entry.level)).toEqual(['warn', 'info']);
    expect(logger.entries[0]?.obj).toEqual({ err: 'Command timed out' });
    console.info(
      `Redis frozen: ${frozen.length} requests, all 200; slowest ${slowest(frozen).toFixed(1)} ms, ` +
        `${frozen.filter((sample) => sample.ms >= 200).length} waited for the command timeout`,
    );
  });

  it('serves with per-instance limits when Redis is absent at start (after a bounded wait, logged), and moves to Redis when it appears', async () => {
    const server = await privateRedis();
    const logger = memoryLogger();
    const startedAt = performance.now();
    const limited = await start({
      redisUrl: server.url,
      logger,
      startTimeoutMs: 1000,
      env: { RATE_LIMIT_KEY_PER_MINUTE: '5' },
    });
    // The app waited for Redis (1 s here) before it answered anything, then said why it counts alone.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(950);
    expect(logger.entries.map((entry) => [entry.level, entry.msg])).toEqual([
      ['warn', 'rate limits: Redis unreachable, counting in this instance only until it is back'],
    ]);
    expect(limited.limiter.storeState()).toBe('redis-fallback');
    const responses: LightMyRequestResponse[] = [];
    const firstRequestAt = performance.now();
    for (let i = 0; i < 6; i++) responses.push(await get(limited.app, '/ping', { key: tenant.key }));
    const elapsed = performance.now() - firstRequestAt;
    // Counted in memory: the limit still holds, per instance, without waiting for Redis each time
    // (six 1-second connect timeouts would be 6 s).
    expect(responses.map((res) => res.statusCode)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(elapsed).toBeLessThan(5000);
    expect(logger.entries.map((entry) => entry.level)).toEqual(['warn']);

    await server.start();
    await waitFor(() => logger.entries.some((entry) => entry.level === 'info'));
    const redis = server.client();
    onTestFinished(() => redis.disconnect());
    const other = await createTenant(database.handle.db, { name: 'Chega Depois' });
    expect((await get(limited.app, '/ping', { key: other.key })).statusCode).toBe(200);
    expect(await count(redis, `${limited.prefix}:key-minute:${other.apiKey.id}`)).toBe(1);
    expect(logger.entries.map((entry) => entry.level)).toEqual(['warn', 'info']);
  });
});
