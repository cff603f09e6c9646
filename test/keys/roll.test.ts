// Issue 22, item 4, through real HTTP on two instances of one database: a rolled key keeps
// working for its grace and is then refused with 401 api_key_expired on every instance; keys
// carry a checksum, so a mistyped one is refused without any database query; keys issued before
// checksums keep working.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { apiKeys } from '../../src/db/schema.js';
import { generateApiKey, hashApiKey } from '../../src/keys/api-keys.js';
import { createApiKey, revokeApiKey } from '../../src/operations/api-keys.js';
import { OperationError } from '../../src/operations/errors.js';
import { executeOperation } from '../../src/operations/index.js';
import { apiCall } from '../helpers/cli.js';
import { movableClock } from '../helpers/clock.js';
import {
  asOperator,
  createTenant,
  operationSetup,
  type SecondInstance,
  startSecondInstance,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';

const HOUR_MS = 60 * 60 * 1000;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The key with the character at `position` replaced by another one. */
function mistyped(key: string, position: number): string {
  const current = key[position] as string;
  const other = BASE62[(BASE62.indexOf(current) + 1 + randomInt(BASE62.length - 1)) % BASE62.length];
  return `${key.slice(0, position)}${other}${key.slice(position + 1)}`;
}

describe(`keys: rolling, checksums (${testStorage()})`, () => {
  let ctx: TestContext;
  let second: App;
  let secondInstance: SecondInstance | undefined;
  /** The API base URL of each instance. */
  let instances: string[];
  let tenant: Tenant;

  const roll = (id: number, grace?: string) =>
    executeOperation(
      operationSetup(ctx.database.handle),
      'keys.roll',
      { id: String(id), ...(grace ? { grace } : {}) },
      'test',
    );
  const statusesOn = async (key: string) =>
    Promise.all(
      instances.map(async (base) => {
        const answer = await apiCall(base, key, '/ping');
        return answer.status === 200 ? 200 : `${answer.status} ${answer.body.error.code}`;
      }),
    );

  beforeAll(async () => {
    ctx = await startTestApp();
    secondInstance = await startSecondInstance(ctx);
    second = secondInstance.app;
    instances = await Promise.all(
      [ctx.app, second].map(
        async (app) => `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`,
      ),
    );
    tenant = await createTenant(ctx.db, {
      name: 'Chaves Roladas, Lda',
      days: 30,
      scopes: ['customers:read'],
    });
  });
  afterAll(async () => {
    await secondInstance?.close();
    await ctx?.close();
  });

  it('keys roll: a new key like the old one, shown once; the old one works on every instance until the grace ends, then 401 api_key_expired', async () => {
    // Both instances have used the old key: they remember it (with its old expiry).
    expect(await statusesOn(tenant.key)).toEqual([200, 200]);
    const rolled = await roll(tenant.apiKey.id, '24h');
    expect(rolled).toMatchObject({
      mode: 'live',
      scopes: ['customers:read'],
      company_id: tenant.companyId,
      previous_key: { id: tenant.apiKey.id },
    });
    expect(rolled.id).not.toBe(tenant.apiKey.id);
    expect(rolled.key).toMatch(/^svc_sk_live_[A-Za-z0-9]{42}$/);
    // Valid as long as the old key was when issued (30 days); the old one for the grace.
    expect((Date.parse(rolled.expires_at) - Date.now()) / (24 * HOUR_MS)).toBeCloseTo(30, 1);
    expect((Date.parse(rolled.previous_key.expires_at) - Date.now()) / HOUR_MS).toBeCloseTo(24, 1);

    // During the grace both keys work, on both instances.
    expect(await statusesOn(tenant.key)).toEqual([200, 200]);
    expect(await statusesOn(rolled.key)).toEqual([200, 200]);
    const ping = await apiCall(instances[1] as string, rolled.key, '/ping');
    expect(ping.body.data).toMatchObject({ tenant_id: tenant.companyId, scopes: ['customers:read'] });

    // Past the grace (the instances' clocks moved a day on), only the new key works, everywhere.
    const clock = movableClock();
    try {
      clock.advance(24 * HOUR_MS + 60_000);
      expect(await statusesOn(tenant.key)).toEqual(['401 api_key_expired', '401 api_key_expired']);
      expect(await statusesOn(rolled.key)).toEqual([200, 200]);
    } finally {
      clock.restore();
    }
  });

  it('--grace 0h: refused at once on every instance, also where the key was remembered', async () => {
    const key = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId, days: 7 });
    expect(await statusesOn(key.key)).toEqual([200, 200]);
    const rolled = await roll(key.id, '0h');
    // Remembered keys are forgotten on the change's announcement (at most a second without it).
    await vi.waitFor(
      async () => expect(await statusesOn(key.key)).toEqual(['401 api_key_expired', '401 api_key_expired']),
      { timeout: 1500, interval: 20 },
    );
    expect(await statusesOn(rolled.key)).toEqual([200, 200]);
    expect((Date.parse(rolled.expires_at) - Date.now()) / (24 * HOUR_MS)).toBeCloseTo(7, 1);
  });

  it('refuses to roll an unknown, revoked, expired or already rolled key', async () => {
    const refusal = (id: number) =>
      roll(id).then(
        () => 'rolled',
        (error: unknown) => (error instanceof OperationError ? error.message : String(error)),
      );
    const revoked = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId });
    await revokeApiKey(asOperator(ctx.db), revoked.id);
    expect(await refusal(revoked.id)).toBe(`API key ${revoked.id} is revoked: create a new key instead`);
    expect(await refusal(999_999)).toBe('API key 999999 does not exist');
    const rolledOnce = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId });
    const replacement = await roll(rolledOnce.id);
    expect(await refusal(rolledOnce.id)).toBe(
      `API key ${rolledOnce.id} was rolled already: its replacement is key ${replacement.id}`,
    );
    // The default grace: 24 hours.
    expect((Date.parse(replacement.previous_key.expires_at) - Date.now()) / HOUR_MS).toBeCloseTo(24, 1);
    const expired = await roll(replacement.id, '0h');
    expect(await refusal(replacement.id)).toMatch(/was rolled already/);
    expect(await refusal(expired.id)).toBe('rolled');
  });

  it('keys issued before checksums (40 random characters) keep working; a mistyped one is looked up and refused', async () => {
    let key = 'svc_sk_live_';
    for (let i = 0; i < 40; i++) key += BASE62[randomInt(BASE62.length)];
    await ctx.db.insert(apiKeys).values({
      companyId: tenant.companyId,
      mode: 'live',
      displayPrefix: key.slice(0, 16),
      secretHash: hashApiKey(key),
      scopes: ['customers:read'],
      expiresAt: new Date(Date.now() + 24 * HOUR_MS),
    });
    expect(await statusesOn(key)).toEqual([200, 200]);
    expect(await statusesOn(mistyped(key, 30))).toEqual(['401 invalid_api_key', '401 invalid_api_key']);
  });

  it('a key with one character changed is refused as 401 invalid_api_key without any database query', async () => {
    // An instance whose database is closed: any query it tried would fail (5xx), never a 401.
    const { createTestDatabase } = await import('../helpers/database.js');
    const database = await createTestDatabase();
    const alone = await buildApp({ config: ctx.config, database: database.handle, logger: false });
    try {
      const base = `${await alone.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
      const issued = generateApiKey('live').key;
      await database.close();
      // Every position of the opaque part, the random characters and the checksum alike.
      for (let position = 12; position < issued.length; position++) {
        const answer = await apiCall(base, mistyped(issued, position), '/ping');
        expect({ position, status: answer.status, code: answer.body?.error?.code }).toEqual({
          position,
          status: 401,
          code: 'invalid_api_key',
        });
      }
      // The same key unchanged is well formed: it is looked up, which this instance cannot do.
      const lookedUp = await fetch(`${base}/ping`, { headers: { authorization: `Bearer ${issued}` } });
      expect(lookedUp.status).toBeGreaterThanOrEqual(500);
    } finally {
      // (its closing unlistens on the closed database: PGlite says so)
      await alone.close().catch(() => {});
    }
  });
});
