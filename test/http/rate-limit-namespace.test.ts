// decisions.md: "Rate-limit counters in Redis are namespaced per installation (two deployments
// that share one Redis, e.g. staging and production, never share counters, even where their key
// ids are equal)". Two installations are two databases (each with its own installation id, made
// by its migrations), served by apps that build their own limiter exactly as `serve` does; and
// REDIS_KEY_PREFIX replaces the namespace when an operator wants another one.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { installationId } from '../../src/db/installation.js';
import { checkConformance } from '../helpers/conformance.js';
import { createTenant, GENEROUS_LIMITS, TEST_DOCS_URL, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { deleteRedisKeys, get, limitHeaders } from '../helpers/rate-limit.js';
import { TEST_REDIS_URL } from '../helpers/services.js';

interface Installation {
  database: TestDatabase;
  tenant: Tenant;
}

const namespaces: string[] = [];
let staging: Installation;
let production: Installation;

async function installation(): Promise<Installation> {
  const database = await createTestDatabase();
  return { database, tenant: await createTenant(database.handle.db) };
}

beforeAll(async () => {
  [staging, production] = await Promise.all([installation(), installation()]);
});
afterAll(async () => {
  await Promise.all([staging?.database.close(), production?.database.close()]);
  for (const namespace of namespaces) await deleteRedisKeys(namespace);
});

/** An app over an installation's database with Redis, its limiter built by buildApp as `serve` does. */
async function serve(where: Installation, env: Record<string, string> = {}): Promise<App> {
  const config = loadConfig({
    DOCS_URL: TEST_DOCS_URL,
    ...GENEROUS_LIMITS,
    RATE_LIMIT_KEY_PER_MINUTE: '2',
    REDIS_URL: TEST_REDIS_URL,
    ...env,
  });
  const app = checkConformance(await buildApp({ config, database: where.database.handle, logger: false }));
  await app.ready();
  onTestFinished(() => app.close());
  return app;
}

describe('rate-limit counters in Redis, per installation', () => {
  it('decisions.md: two installations on one Redis "never share counters, even where their key ids are equal"', async () => {
    const ids = [
      await installationId(staging.database.handle.db),
      await installationId(production.database.handle.db),
    ];
    for (const id of ids) namespaces.push(`partner-api:${id}:rl`);
    expect(ids[0]).not.toBe(ids[1]);
    expect(staging.tenant.apiKey.id).toBe(production.tenant.apiKey.id);
    const [stagingApp, productionApp] = [await serve(staging), await serve(production)];

    expect((await get(stagingApp, '/ping', { key: staging.tenant.key })).statusCode).toBe(200);
    expect((await get(stagingApp, '/ping', { key: staging.tenant.key })).statusCode).toBe(200);
    expect((await get(stagingApp, '/ping', { key: staging.tenant.key })).statusCode).toBe(429);
    // Same key id, other installation: its own budget, untouched.
    const first = await get(productionApp, '/ping', { key: production.tenant.key });
    expect(first.statusCode).toBe(200);
    expect(limitHeaders(first)).toEqual({ limit: '2', remaining: '1' });

    const redis = new Redis(TEST_REDIS_URL);
    onTestFinished(() => redis.disconnect());
    const keyId = staging.tenant.apiKey.id;
    expect(await redis.get(`partner-api:${ids[0]}:rl:key-minute:${keyId}`)).toBe('3');
    expect(await redis.get(`partner-api:${ids[1]}:rl:key-minute:${keyId}`)).toBe('1');
  });

  it('REDIS_KEY_PREFIX replaces the namespace: installations given the same one share it on purpose', async () => {
    const prefix = `partner-api-test:${randomBytes(6).toString('hex')}`;
    namespaces.push(prefix);
    const a = await serve(staging, { REDIS_KEY_PREFIX: prefix });
    const b = await serve(production, { REDIS_KEY_PREFIX: prefix });
    expect((await get(a, '/ping', { key: staging.tenant.key })).statusCode).toBe(200);
    expect((await get(b, '/ping', { key: production.tenant.key })).statusCode).toBe(200);
    expect((await get(a, '/ping', { key: staging.tenant.key })).statusCode).toBe(429);
    const redis = new Redis(TEST_REDIS_URL);
    onTestFinished(() => redis.disconnect());
    expect(await redis.get(`${prefix}:key-minute:${staging.tenant.apiKey.id}`)).toBe('3');
  });
});
