// Section 8 limits, on both stores (process memory and the shared test Redis): each limit refuses
// exactly the first request over it, with Retry-After and X-RateLimit-*; refused attempts count;
// the per-IP limit never holds back a valid key; TRUST_PROXY decides whether X-Forwarded-For is
// the client.
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apiKeys } from '../../src/db/schema.js';
import { ApiError } from '../../src/errors.js';
import { createRateLimiter, type KeyUsage, type RateLimiter } from '../../src/http/rate-limit/index.js';
import { createApiKey, revokeApiKey } from '../../src/operations/api-keys.js';
import { asOperator, createTenant, GENEROUS_LIMITS, TEST_DOCS_URL } from '../helpers/context.js';
import { draftHeaders, get, limitHeaders, post, type Store, useLimitedApps } from '../helpers/rate-limit.js';
import { TEST_REDIS_URL } from '../helpers/services.js';

const MINUTE_RETRY_AFTER = { min: 1, max: 60 };

function expectRateLimited(
  res: LightMyRequestResponse,
  limit: number,
  retryAfter: { min: number; max: number } = MINUTE_RETRY_AFTER,
): number {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(body).toEqual({
    error: {
      code: 'rate_limit_exceeded',
      message: expect.any(String),
      hint: expect.any(String),
      doc_url: `${TEST_DOCS_URL}/errors#rate_limit_exceeded`,
      request_id: res.headers['x-request-id'],
    },
  });
  expect(limitHeaders(res)).toEqual({ limit: String(limit), remaining: '0' });
  const seconds = Number(res.headers['retry-after']);
  expect(String(seconds)).toBe(res.headers['retry-after']);
  expect(Number.isInteger(seconds)).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(retryAfter.min);
  expect(seconds).toBeLessThanOrEqual(retryAfter.max);
  return seconds;
}

describe.each<Store>(['memory', 'redis'])('rate limits in %s', (store) => {
  const { database: testDatabase, start } = useLimitedApps(store);

  it('per key and minute: refuses exactly the first request over the limit, and the next ones', async () => {
    const { app } = await start({ RATE_LIMIT_KEY_PER_MINUTE: '5' });
    const tenant = await createTenant(testDatabase().handle.db);
    for (let i = 1; i <= 5; i++) {
      const res = await get(app, '/ping', { key: tenant.key });
      expect(res.statusCode).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: '5', remaining: String(5 - i) });
    }
    const refused = await get(app, '/ping', { key: tenant.key });
    const retryAfter = expectRateLimited(refused, 5);
    expect(retryAfter).toBeGreaterThanOrEqual(55);
    expectRateLimited(await get(app, '/ping', { key: tenant.key }), 5);
    // Another key of another company is not touched.
    const other = await createTenant(testDatabase().handle.db, { name: 'Outra' });
    expect((await get(app, '/ping', { key: other.key })).statusCode).toBe(200);
  });

  it('writes per key and minute: the write over the limit is refused, reads go on', async () => {
    const { app } = await start({ RATE_LIMIT_KEY_WRITES_PER_MINUTE: '3' });
    const tenant = await createTenant(testDatabase().handle.db);
    for (let i = 1; i <= 3; i++) {
      const res = await post(app, tenant.key);
      expect(res.statusCode).toBe(201);
      expect(limitHeaders(res)).toEqual({ limit: '3', remaining: String(3 - i) });
    }
    expectRateLimited(await post(app, tenant.key), 3);
    const read = await get(app, '/ping', { key: tenant.key });
    expect(read.statusCode).toBe(200);
    expect(limitHeaders(read)).toEqual({ limit: '1000000', remaining: '999995' });
  });

  it('per key and day: refuses the first request over it until the day window ends', async () => {
    const { app } = await start({ RATE_LIMIT_KEY_PER_DAY: '4' });
    const tenant = await createTenant(testDatabase().handle.db);
    for (let i = 1; i <= 4; i++) {
      const res = await get(app, '/ping', { key: tenant.key });
      expect(res.statusCode).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: '4', remaining: String(4 - i) });
    }
    const retryAfter = expectRateLimited(await get(app, '/ping', { key: tenant.key }), 4, {
      min: 86_400 - 60,
      max: 86_400,
    });
    expect(retryAfter).toBeGreaterThan(60);
  });

  it('per company and minute: counts all keys of the company together', async () => {
    const { app } = await start({ RATE_LIMIT_COMPANY_PER_MINUTE: '4' });
    const tenant = await createTenant(testDatabase().handle.db);
    const second = await createApiKey(asOperator(testDatabase().handle.db), {
      companyId: tenant.companyId,
      days: 30,
    });
    const other = await createTenant(testDatabase().handle.db, { name: 'Outra' });
    const remaining: string[] = [];
    for (const key of [tenant.key, second.key, tenant.key, second.key]) {
      const res = await get(app, '/ping', { key });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('4');
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['3', '2', '1', '0']);
    expectRateLimited(await get(app, '/ping', { key: second.key }), 4);
    expectRateLimited(await get(app, '/ping', { key: tenant.key }), 4);
    expect((await get(app, '/ping', { key: other.key })).statusCode).toBe(200);
  });

  it('per IP without a valid key: invalid, revoked and expired keys count; past the limit 429, not 401', async () => {
    const { app } = await start({ RATE_LIMIT_IP_PER_MINUTE: '3' });
    const tenant = await createTenant(testDatabase().handle.db);
    const revoked = await createApiKey(asOperator(testDatabase().handle.db), {
      companyId: tenant.companyId,
      days: 30,
    });
    await revokeApiKey(asOperator(testDatabase().handle.db), revoked.id);
    const expired = await createApiKey(asOperator(testDatabase().handle.db), {
      companyId: tenant.companyId,
      days: 1,
    });
    await testDatabase()
      .handle.db.update(apiKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(sql`id = ${expired.id}`);
    const ip = '198.51.100.7';

    const codes = [];
    for (const options of [{}, { key: revoked.key }, { key: expired.key }]) {
      const res = await get(app, '/ping', { ...options, remoteAddress: ip });
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      codes.push(res.json().error.code);
    }
    expect(codes).toEqual(['invalid_api_key', 'api_key_revoked', 'api_key_expired']);
    expectRateLimited(await get(app, '/ping', { remoteAddress: ip }), 3);
    expectRateLimited(await get(app, '/ping', { key: revoked.key, remoteAddress: ip }), 3);
    expectRateLimited(
      await get(app, '/ping', { headers: { authorization: 'Bearer nope' }, remoteAddress: ip }),
      3,
    );
    // Another address has its own count.
    expect((await get(app, '/ping', { remoteAddress: '198.51.100.8' })).statusCode).toBe(401);
    // ::ffff:198.51.100.7 is the same IPv4 client.
    expectRateLimited(await get(app, '/ping', { remoteAddress: '::ffff:198.51.100.7' }), 3);
  });

  it('per IP never holds back a valid key, and valid keys do not count toward it', async () => {
    const { app } = await start({ RATE_LIMIT_IP_PER_MINUTE: '2' });
    const tenant = await createTenant(testDatabase().handle.db);
    const ip = '203.0.113.50';
    for (let i = 0; i < 10; i++) {
      expect((await get(app, '/ping', { key: tenant.key, remoteAddress: ip })).statusCode).toBe(200);
    }
    expect((await get(app, '/ping', { remoteAddress: ip })).statusCode).toBe(401);
    expect((await get(app, '/ping', { remoteAddress: ip })).statusCode).toBe(401);
    expectRateLimited(await get(app, '/ping', { remoteAddress: ip }), 2);
    const valid = await get(app, '/ping', { key: tenant.key, remoteAddress: ip });
    expect(valid.statusCode).toBe(200);
    expect(valid.headers['x-ratelimit-limit']).toBe('1000000');
  });

  it('contract section 8 "Requests per minute without a valid key, per IP: 30": 60 concurrent bad keys, exactly 30 get 401', async () => {
    const { app } = await start({ RATE_LIMIT_IP_PER_MINUTE: '30' });
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        get(app, '/ping', {
          key: `svc_sk_live_${String(i).padStart(40, 'x')}`,
          remoteAddress: '203.0.113.60',
        }),
      ),
    );
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
  });

  it('every response carries RateLimit-Policy (each limit that counted it) and RateLimit (the tightest: remaining, reset)', async () => {
    const { app } = await start({
      RATE_LIMIT_KEY_PER_MINUTE: '60',
      RATE_LIMIT_KEY_WRITES_PER_MINUTE: '2',
      RATE_LIMIT_KEY_PER_DAY: '5000',
      RATE_LIMIT_COMPANY_PER_MINUTE: '120',
      RATE_LIMIT_IP_PER_MINUTE: '2',
    });
    const tenant = await createTenant(testDatabase().handle.db);
    const readPolicy = '"key-minute";q=60;w=60, "key-day";q=5000;w=86400, "company-minute";q=120;w=60';
    const writePolicy = `${readPolicy}, "key-writes-minute";q=2;w=60`;
    const reset = (header: string) => Number(/;t=(\d+)$/.exec(header)?.[1]);

    const read = await get(app, '/ping', { key: tenant.key });
    expect(read.statusCode).toBe(200);
    expect(draftHeaders(read).policy).toBe(readPolicy);
    expect(draftHeaders(read).rateLimit).toMatch(/^"key-minute";r=59;t=\d+$/);
    expect(reset(draftHeaders(read).rateLimit)).toBeGreaterThanOrEqual(55);
    expect(reset(draftHeaders(read).rateLimit)).toBeLessThanOrEqual(60);

    const write = await post(app, tenant.key);
    expect(write.statusCode).toBe(201);
    expect(draftHeaders(write).policy).toBe(writePolicy);
    expect(draftHeaders(write).rateLimit).toMatch(/^"key-writes-minute";r=1;t=\d+$/);
    expect(limitHeaders(write)).toEqual({ limit: '2', remaining: '1' });
    expect((await post(app, tenant.key)).statusCode).toBe(201);
    const refusedWrite = await post(app, tenant.key);
    expect(refusedWrite.statusCode).toBe(429);
    expect(draftHeaders(refusedWrite).policy).toBe(writePolicy);
    expect(draftHeaders(refusedWrite).rateLimit).toMatch(/^"key-writes-minute";r=0;t=\d+$/);
    expect(reset(draftHeaders(refusedWrite).rateLimit)).toBe(Number(refusedWrite.headers['retry-after']));

    // A later refusal (404) still carries them.
    const missing = await get(app, '/customers/999999', { key: tenant.key });
    expect(missing.statusCode).toBe(404);
    expect(draftHeaders(missing).policy).toBe(readPolicy);

    // Without a valid key: the per-IP limit, on the 401 and on the 429.
    const ip = '203.0.113.61';
    const first = await get(app, '/ping', { remoteAddress: ip });
    expect(first.statusCode).toBe(401);
    expect(draftHeaders(first).policy).toBe('"ip-minute";q=2;w=60');
    expect(draftHeaders(first).rateLimit).toMatch(/^"ip-minute";r=1;t=\d+$/);
    expect(first.headers['x-ratelimit-limit']).toBeUndefined();
    expect(draftHeaders(await get(app, '/ping', { remoteAddress: ip })).rateLimit).toMatch(
      /^"ip-minute";r=0;t=\d+$/,
    );
    const over = await get(app, '/ping', { remoteAddress: ip });
    expect(over.statusCode).toBe(429);
    expect(draftHeaders(over).policy).toBe('"ip-minute";q=2;w=60');
    expect(draftHeaders(over).rateLimit).toMatch(/^"ip-minute";r=0;t=\d+$/);

    // Refused before any limit counts it (Origin, step 3): no limit to tell about.
    const browser = await get(app, '/ping', { key: tenant.key, headers: { origin: 'https://shop.example' } });
    expect(browser.statusCode).toBe(403);
    expect(browser.headers['ratelimit-policy']).toBeUndefined();
    expect(browser.headers.ratelimit).toBeUndefined();
  });

  it('refused attempts still count, in every limit that applies to them', async () => {
    const { app, prefix } = await start({
      RATE_LIMIT_KEY_PER_MINUTE: '5',
      RATE_LIMIT_KEY_WRITES_PER_MINUTE: '2',
    });
    const tenant = await createTenant(testDatabase().handle.db);
    expect((await post(app, tenant.key)).statusCode).toBe(201);
    expect((await post(app, tenant.key)).statusCode).toBe(201);
    // Refused by the write limit, yet counted in the minute limit (requests 3 and 4 of 5) ...
    expectRateLimited(await post(app, tenant.key), 2);
    expectRateLimited(await post(app, tenant.key), 2);
    // ... so only one read is left, not three.
    const last = await get(app, '/ping', { key: tenant.key });
    expect(last.statusCode).toBe(200);
    expect(limitHeaders(last)).toEqual({ limit: '5', remaining: '0' });
    expectRateLimited(await get(app, '/ping', { key: tenant.key }), 5);
    // Refused reads keep counting too.
    expectRateLimited(await get(app, '/ping', { key: tenant.key }), 5);

    if (store === 'redis') {
      const redis = new Redis(TEST_REDIS_URL);
      onTestFinished(() => redis.disconnect());
      const id = tenant.apiKey.id;
      expect(await redis.get(`${prefix}:key-minute:${id}`)).toBe('7');
      expect(await redis.get(`${prefix}:key-writes-minute:${id}`)).toBe('4');
      expect(await redis.get(`${prefix}:key-day:${id}`)).toBe('7');
      expect(await redis.get(`${prefix}:company-minute:${tenant.companyId}`)).toBe('7');
    }
  });

  it('sends the tightest limit (fewest left) on every response of a valid key, also on later errors', async () => {
    const { app } = await start({
      RATE_LIMIT_KEY_PER_MINUTE: '10',
      RATE_LIMIT_KEY_WRITES_PER_MINUTE: '3',
      RATE_LIMIT_COMPANY_PER_MINUTE: '12',
      RATE_LIMIT_KEY_PER_DAY: '1000',
    });
    const tenant = await createTenant(testDatabase().handle.db);
    const second = await createApiKey(asOperator(testDatabase().handle.db), {
      companyId: tenant.companyId,
      days: 30,
    });
    expect(limitHeaders(await get(app, '/ping', { key: tenant.key }))).toEqual({
      limit: '10',
      remaining: '9',
    });
    expect(limitHeaders(await post(app, tenant.key))).toEqual({ limit: '3', remaining: '2' });
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 8; i++) last = await get(app, '/ping', { key: second.key });
    // Key 2: 8 of 10 used; company: 10 of 12. A tie goes to the smaller limit.
    expect(limitHeaders(last!)).toEqual({ limit: '10', remaining: '2' });
    // Key 1: 2 of 10 used, but the company has only 1 left.
    expect(limitHeaders(await get(app, '/ping', { key: tenant.key }))).toEqual({
      limit: '12',
      remaining: '1',
    });
    // A refusal after the limits (here a 404) still carries the headers.
    const notFound = await get(app, '/customers/999999', { key: tenant.key });
    expect(notFound.statusCode).toBe(404);
    expect(limitHeaders(notFound)).toEqual({ limit: '12', remaining: '0' });
  });

  it('counts keys of a disabled company before answering partner_api_disabled', async () => {
    const { app } = await start({ RATE_LIMIT_KEY_PER_MINUTE: '2' });
    const tenant = await createTenant(testDatabase().handle.db, { enabled: false });
    for (const remaining of ['1', '0']) {
      const res = await get(app, '/ping', { key: tenant.key });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('partner_api_disabled');
      expect(limitHeaders(res)).toEqual({ limit: '2', remaining });
    }
    expectRateLimited(await get(app, '/ping', { key: tenant.key }), 2);
  });

  it('takes the client IP from the connection, and from X-Forwarded-For only with TRUST_PROXY', async () => {
    const direct = await start({ RATE_LIMIT_IP_PER_MINUTE: '2' });
    const proxy = '10.0.0.1';
    for (const client of ['192.0.2.1', '192.0.2.2']) {
      const res = await get(direct.app, '/ping', {
        remoteAddress: proxy,
        headers: { 'x-forwarded-for': client },
      });
      expect(res.statusCode).toBe(401);
    }
    expectRateLimited(
      await get(direct.app, '/ping', { remoteAddress: proxy, headers: { 'x-forwarded-for': '192.0.2.3' } }),
      2,
    );

    const behindProxy = await start({ RATE_LIMIT_IP_PER_MINUTE: '2', TRUST_PROXY: 'true' });
    for (const client of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) {
      const res = await get(behindProxy.app, '/ping', {
        remoteAddress: proxy,
        headers: { 'x-forwarded-for': client },
      });
      expect(res.statusCode).toBe(401);
    }
    const same = { remoteAddress: proxy, headers: { 'x-forwarded-for': '192.0.2.1' } };
    expect((await get(behindProxy.app, '/ping', same)).statusCode).toBe(401);
    expectRateLimited(await get(behindProxy.app, '/ping', same), 2);
  });
});

describe('Retry-After: until the refused request would pass (memory store, controlled clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function limiterWith(env: Record<string, string>): RateLimiter {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-02T08:00:00.000Z'));
    return createRateLimiter(loadConfig({ ...GENEROUS_LIMITS, ...env }));
  }

  function advance(ms: number): void {
    vi.setSystemTime(Date.now() + ms);
  }

  async function refusal(attempt: Promise<unknown>): Promise<Record<string, string>> {
    const error = await attempt.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('rate_limit_exceeded');
    return (error as ApiError).headers;
  }

  /** RateLimit-Policy of a read with these quotas of key-minute, key-day and company-minute. */
  const readPolicy = (keyMinute: number, keyDay: number, companyMinute: number) =>
    `"key-minute";q=${keyMinute};w=60, "key-day";q=${keyDay};w=86400, "company-minute";q=${companyMinute};w=60`;
  const GENEROUS = 1_000_000;

  it('rounds the rest of the window up to whole seconds; the retry after it passes, one earlier does not', async () => {
    const limiter = limiterWith({ RATE_LIMIT_KEY_PER_MINUTE: '2' });
    const usage: KeyUsage = { apiKeyId: 1, companyId: 1, isWrite: false };
    await limiter.consumeKey(usage);
    await limiter.consumeKey(usage);
    advance(20_500);
    expect(await refusal(limiter.consumeKey(usage))).toEqual({
      'Retry-After': '40',
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '0',
      'RateLimit-Policy': readPolicy(2, GENEROUS, GENEROUS),
      RateLimit: '"key-minute";r=0;t=40',
    });
    advance(39_000);
    expect((await refusal(limiter.consumeKey(usage)))['Retry-After']).toBe('1');
    advance(500);
    expect(await limiter.consumeKey(usage)).toEqual({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '1',
      'RateLimit-Policy': readPolicy(2, GENEROUS, GENEROUS),
      RateLimit: '"key-minute";r=1;t=60',
    });
  });

  it('waits for every full counter, not only the one that refused', async () => {
    const limiter = limiterWith({ RATE_LIMIT_KEY_PER_MINUTE: '2', RATE_LIMIT_COMPANY_PER_MINUTE: '3' });
    const a: KeyUsage = { apiKeyId: 1, companyId: 7, isWrite: false };
    const b: KeyUsage = { apiKeyId: 2, companyId: 7, isWrite: false };
    await limiter.consumeKey(b); // the company's window opens here
    advance(30_000);
    await limiter.consumeKey(a); // key 1's window opens here
    await limiter.consumeKey(b); // company: 3 of 3
    // Refused by the company (30 s left); key 1 is now full too (2 of 2, 60 s left), so a retry
    // after 30 s would be refused again: Retry-After is 60.
    expect(await refusal(limiter.consumeKey(a))).toEqual({
      'Retry-After': '60',
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '0',
      'RateLimit-Policy': readPolicy(2, GENEROUS, 3),
      RateLimit: '"company-minute";r=0;t=30',
    });
    advance(30_000);
    expect(await refusal(limiter.consumeKey(a))).toEqual({
      'Retry-After': '30',
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '0',
      'RateLimit-Policy': readPolicy(2, GENEROUS, 3),
      RateLimit: '"key-minute";r=0;t=30',
    });
    advance(30_000);
    expect(await limiter.consumeKey(a)).toEqual({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '1',
      'RateLimit-Policy': readPolicy(2, GENEROUS, 3),
      RateLimit: '"key-minute";r=1;t=60',
    });
  });

  it('the day limit refuses until its own window ends', async () => {
    const limiter = limiterWith({ RATE_LIMIT_KEY_PER_DAY: '3' });
    const usage: KeyUsage = { apiKeyId: 9, companyId: 9, isWrite: false };
    for (let i = 0; i < 3; i++) await limiter.consumeKey(usage);
    advance(3_600_000);
    expect(await refusal(limiter.consumeKey(usage))).toEqual({
      'Retry-After': String(23 * 3600),
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '0',
      'RateLimit-Policy': readPolicy(GENEROUS, 3, GENEROUS),
      RateLimit: `"key-day";r=0;t=${23 * 3600}`,
    });
    advance(23 * 3_600_000);
    expect(await limiter.consumeKey(usage)).toEqual({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'RateLimit-Policy': readPolicy(GENEROUS, 3, GENEROUS),
      RateLimit: '"key-day";r=2;t=86400',
    });
  });
});
