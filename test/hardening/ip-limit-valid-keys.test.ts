// Past the per-IP limit, a wrong key is refused before it is looked up: a flood of well-formed
// wrong keys from one address costs no database query, while a key that has authenticated keeps
// working from that same address. On the memory store and on Redis.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import * as apiKeys from '../../src/keys/api-keys.js';
import { createTenant } from '../helpers/context.js';
import { get, type Store, useLimitedApps } from '../helpers/rate-limit.js';

vi.mock('../../src/keys/api-keys.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/keys/api-keys.js')>();
  return { ...original, findApiKey: vi.fn(original.findApiKey) };
});

const lookups = () => vi.mocked(apiKeys.findApiKey).mock.calls.length;
const wrongKey = () => `svc_sk_live_${randomBytes(24).toString('hex')}`;

describe.each<Store>(['memory', 'redis'])('per-IP limit before the key lookup (%s)', (store) => {
  const { database: testDatabase, start } = useLimitedApps(store);

  it('refuses wrong keys from an IP over its limit without looking them up; a known valid key still works', async () => {
    const { app } = await start({ RATE_LIMIT_IP_PER_MINUTE: '3' });
    const tenant = await createTenant(testDatabase().handle.db);
    const ip = '198.51.100.40';
    // The valid key authenticates once (from anywhere).
    expect((await get(app, '/ping', { key: tenant.key, remoteAddress: '198.51.100.41' })).statusCode).toBe(
      200,
    );

    for (let i = 0; i < 3; i++) {
      expect((await get(app, '/ping', { key: wrongKey(), remoteAddress: ip })).statusCode).toBe(401);
    }
    // The first refusal still looks its key up: it is what tells this instance the IP is over.
    expect((await get(app, '/ping', { key: wrongKey(), remoteAddress: ip })).statusCode).toBe(429);

    const before = lookups();
    for (let i = 0; i < 25; i++) {
      const res = await get(app, '/ping', { key: wrongKey(), remoteAddress: ip });
      expect(res.statusCode).toBe(429);
      expect(res.json().error.code).toBe('rate_limit_exceeded');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(lookups() - before).toBe(0);

    // The key that authenticated still works from that IP: looked up once, or not at all while
    // the key cache (src/keys/key-cache.ts) still remembers it.
    const valid = await get(app, '/ping', { key: tenant.key, remoteAddress: ip });
    expect(valid.statusCode).toBe(200);
    const afterValid = lookups();
    expect(afterValid - before).toBeLessThanOrEqual(1);

    // Another address is not affected: its wrong key is looked up and answered 401.
    expect((await get(app, '/ping', { key: wrongKey(), remoteAddress: '198.51.100.42' })).statusCode).toBe(
      401,
    );
    expect(lookups() - afterValid).toBe(1);
  });
});
