// decisions.md, order of checks, step 4: the per-IP limit is for requests WITHOUT a valid key. A
// valid key is never refused by it, whether or not it was seen before (partners behind one
// carrier-grade NAT or office IP share an address with strangers), on one instance and across
// two; floods of bad keys stay cheap by remembering bad keys (src/keys/key-cache.ts), and a key
// created after its digest was remembered as bad works at once on every instance. On the memory
// store and on Redis, on both storages.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import * as apiKeys from '../../src/keys/api-keys.js';
import { createApiKey } from '../../src/operations/api-keys.js';
import { asOperator, createTenant } from '../helpers/context.js';
import {
  draftHeaders,
  get,
  limitedApp,
  limitHeaders,
  type Store,
  useLimitedApps,
} from '../helpers/rate-limit.js';

/** The next key createApiKey generates, when a test sets it (otherwise a random one). */
let nextGeneratedKey: string | null = null;

vi.mock('../../src/keys/api-keys.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/keys/api-keys.js')>();
  return {
    ...original,
    findApiKey: vi.fn(original.findApiKey),
    generateApiKey: vi.fn((mode: 'live' | 'test') => {
      const key = nextGeneratedKey;
      nextGeneratedKey = null;
      if (!key) return original.generateApiKey(mode);
      return { key, displayPrefix: key.slice(0, 16), secretHash: original.hashApiKey(key) };
    }),
  };
});

const lookups = () => vi.mocked(apiKeys.findApiKey).mock.calls.length;
const wrongKey = () => `svc_sk_live_${randomBytes(24).toString('hex')}`;
const NEVER_REFUSED =
  'decisions.md step 4: "a valid key is never refused by [the per-IP limit], whether or not it was seen before"';

describe.each<Store>(['memory', 'redis'])('per-IP limit and valid keys (%s)', (store) => {
  const { database: testDatabase, start } = useLimitedApps(store);

  it(`${NEVER_REFUSED}: a key never seen before, from an address over its limit, gets 200`, async () => {
    const { app } = await start({ RATE_LIMIT_IP_PER_MINUTE: '3' });
    const ip = '198.51.100.40';
    for (let i = 0; i < 3; i++) {
      expect((await get(app, '/ping', { key: wrongKey(), remoteAddress: ip })).statusCode).toBe(401);
    }
    for (let i = 0; i < 5; i++) {
      const refused = await get(app, '/ping', { key: wrongKey(), remoteAddress: ip });
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limit_exceeded');
    }
    // Created now, never presented anywhere: it is looked up and served, and does not count per IP.
    const tenant = await createTenant(testDatabase().handle.db);
    for (let i = 0; i < 3; i++) {
      const valid = await get(app, '/ping', { key: tenant.key, remoteAddress: ip });
      expect(valid.statusCode, valid.body).toBe(200);
      expect(valid.json().data.tenant_id).toBe(tenant.companyId);
      expect(draftHeaders(valid).policy).toContain('"key-minute"');
    }
    // The address is still over its limit for requests without a valid key.
    expect((await get(app, '/ping', { remoteAddress: ip })).statusCode).toBe(429);
  });

  it('"Keep floods of bad keys cheap by remembering bad keys": a repeated bad key is looked up once', async () => {
    const { app } = await start({ RATE_LIMIT_IP_PER_MINUTE: '5' });
    const ip = '198.51.100.41';
    const bad = wrongKey();
    const before = lookups();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++)
      statuses.push((await get(app, '/ping', { key: bad, remoteAddress: ip })).statusCode);
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(35).fill(429)]);
    expect(lookups() - before).toBe(1);
    // Concurrent copies of one new bad key share one lookup too.
    const flood = wrongKey();
    const beforeFlood = lookups();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => get(app, '/ping', { key: flood, remoteAddress: ip })),
    );
    expect(new Set(answers.map((res) => res.statusCode))).toEqual(new Set([429]));
    expect(lookups() - beforeFlood).toBe(1);
    // Every other key is still looked up: a valid one from that address works.
    const tenant = await createTenant(testDatabase().handle.db);
    expect((await get(app, '/ping', { key: tenant.key, remoteAddress: ip })).statusCode).toBe(200);
  });

  it('a key created after its digest was remembered as bad works at once, on every instance', async () => {
    const env = { RATE_LIMIT_IP_PER_MINUTE: '2' };
    const a = await start(env);
    // A second instance on the same database (and, on Redis, the same counters).
    const b = await limitedApp({ store, database: testDatabase(), env, prefix: a.prefix });
    try {
      const tenant = await createTenant(testDatabase().handle.db);
      const future = `svc_sk_live_${randomBytes(24).toString('hex')}`;
      const ip = '198.51.100.42';
      expect((await get(a.app, '/ping', { key: future, remoteAddress: ip })).statusCode).toBe(401);
      expect((await get(b.app, '/ping', { key: future, remoteAddress: ip })).statusCode).toBe(401);
      // Both instances now remember it as bad; the operator creates exactly that key.
      nextGeneratedKey = future;
      const created = await createApiKey(asOperator(testDatabase().handle.db), {
        companyId: tenant.companyId,
        days: 30,
      });
      expect(created.key).toBe(future);
      // The NOTIFY of the new key reaches every instance (PostgreSQL delivers it asynchronously).
      await vi.waitFor(
        async () => {
          for (const app of [a.app, b.app]) {
            expect((await get(app, '/ping', { key: future, remoteAddress: ip })).statusCode).toBe(200);
          }
        },
        { timeout: 5000, interval: 50 },
      );
    } finally {
      await b.close();
    }
  });
});

describe('per-IP limit and valid keys across two instances on one Redis', () => {
  const { database: testDatabase, start } = useLimitedApps('redis');

  it(`${NEVER_REFUSED}: over the limit on one instance, a new valid key gets 200 on both`, async () => {
    const env = { RATE_LIMIT_IP_PER_MINUTE: '4' };
    const a = await start(env);
    const b = await limitedApp({ store: 'redis', database: testDatabase(), env, prefix: a.prefix });
    try {
      const ip = '198.51.100.43';
      // The shared count: 4 bad keys across both, then both refuse.
      for (const app of [a.app, b.app, a.app, b.app]) {
        expect((await get(app, '/ping', { key: wrongKey(), remoteAddress: ip })).statusCode).toBe(401);
      }
      for (const app of [a.app, b.app]) {
        expect((await get(app, '/ping', { key: wrongKey(), remoteAddress: ip })).statusCode).toBe(429);
      }
      const tenant = await createTenant(testDatabase().handle.db);
      for (const app of [b.app, a.app, b.app]) {
        const valid = await get(app, '/ping', { key: tenant.key, remoteAddress: ip });
        expect(valid.statusCode, valid.body).toBe(200);
        expect(limitHeaders(valid).limit).toBe('1000000');
      }
    } finally {
      await b.close();
    }
  });
});
