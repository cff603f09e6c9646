// Idempotency rules that hold for every POST and PUT, shown on customers.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, idempotencyKeys } from '../../src/db/schema.js';
import { createApiKey } from '../../src/operations/api-keys.js';
import {
  api,
  asOperator,
  createTenant,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';

describe('idempotency', () => {
  let ctx: TestContext;
  let tenant: Tenant;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
  });
  afterAll(() => ctx.close());

  it('accepts 8 to 191 characters of letters, digits and . _ : -', async () => {
    for (const key of ['abcdefgh', 'a'.repeat(191), 'order:2026.11_22-x']) {
      const res = await api(ctx.app, 'POST', '/customers', {
        key: tenant.key,
        idempotencyKey: key,
        body: { name: key },
      });
      expect(res.statusCode, key).toBe(201);
    }
    for (const key of ['abcdefg', 'a'.repeat(192), 'has space1', 'slash/1234', 'semi;colon1', 'accent?d12']) {
      const res = await api(ctx.app, 'POST', '/customers', {
        key: tenant.key,
        idempotencyKey: key,
        body: { name: 'x' },
      });
      expect(res.json().error.code, key).toBe('idempotency_key_invalid');
    }
  });

  it('replays a PUT with its original status', async () => {
    const created = (
      await api(ctx.app, 'POST', '/customers', {
        key: tenant.key,
        idempotencyKey: 'put-base-0001',
        body: { name: 'Base' },
      })
    ).json().data;
    const first = await api(ctx.app, 'PUT', `/customers/${created.id}`, {
      key: tenant.key,
      idempotencyKey: 'put-replay-0001',
      body: { name: 'Renomeado' },
    });
    const again = await api(ctx.app, 'PUT', `/customers/${created.id}`, {
      key: tenant.key,
      idempotencyKey: 'put-replay-0001',
      body: { name: 'Renomeado' },
    });
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.body).toBe(first.body);
    // The same key on another path is another request.
    const otherPath = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'put-replay-0001',
      body: { name: 'Renomeado' },
    });
    expect(otherPath.json().error.code).toBe('idempotency_key_reuse');
  });

  it('scopes keys per API key: another key never sees the first one’s answer', async () => {
    const second = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId });
    const body = { name: 'Por Chave' };
    const a = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'shared-key-0001',
      body,
    });
    const b = await api(ctx.app, 'POST', '/customers', {
      key: second.key,
      idempotencyKey: 'shared-key-0001',
      body,
    });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotency-replay']).toBeUndefined();
    expect(b.json().data.id).not.toBe(a.json().data.id);
  });

  it('frees a key after 24 hours', async () => {
    const first = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'expiring-0001',
      body: { name: 'Antes' },
    });
    expect(first.statusCode).toBe(201);
    const [record] = await ctx.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, 'expiring-0001'));
    const retention = await ctx.db.execute(
      sql`select extract(epoch from ${idempotencyKeys.expiresAt} - ${idempotencyKeys.createdAt})::int as seconds from ${idempotencyKeys} where id = ${record!.id}`,
    );
    expect((retention as unknown as { rows: { seconds: number }[] }).rows[0]?.seconds).toBe(24 * 3600);
    await ctx.db
      .update(idempotencyKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(idempotencyKeys.id, record!.id));
    const later = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'expiring-0001',
      body: { name: 'Depois' },
    });
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotency-replay']).toBeUndefined();
    expect(later.json().data.name).toBe('Depois');
  });

  it('takes over an in-flight claim whose holder died, only after the lock timeout', async () => {
    const body = '{"name":"Órfão"}';
    // A claim as a crashed process leaves it: committed, in flight, never completed.
    await ctx.db.insert(idempotencyKeys).values({
      apiKeyId: tenant.apiKey.id,
      companyId: tenant.companyId,
      key: 'orphan-claim-0001',
      requestHash: (await import('node:crypto'))
        .createHash('sha256')
        .update('POST /api/v1/partner/customers\n')
        .update(body)
        .digest('hex'),
      state: 'in_flight',
      holder: 'dead-process',
      expiresAt: sql`now() + interval '24 hours'`,
    });
    const blocked = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'orphan-claim-0001',
      rawBody: body,
    });
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().error.code).toBe('idempotency_request_in_flight');
    expect(blocked.headers['retry-after']).toBe('2');
    await ctx.db
      .update(idempotencyKeys)
      .set({ lockedAt: sql`now() - interval '61 seconds'` })
      .where(eq(idempotencyKeys.key, 'orphan-claim-0001'));
    const taken = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'orphan-claim-0001',
      rawBody: body,
    });
    expect(taken.statusCode).toBe(201);
    expect(taken.json().data.name).toBe('Órfão');
  });
  const orphanHash = async (body: string) =>
    (await import('node:crypto'))
      .createHash('sha256')
      .update('POST /api/v1/partner/customers\n')
      .update(body)
      .digest('hex');

  it("records the holder's database session with a claim on PostgreSQL only (the embedded database is one process)", async () => {
    const res = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'session-recorded-0001',
      body: { name: 'Sessão' },
    });
    expect(res.statusCode).toBe(201);
    const [record] = await ctx.db
      .select({ holderPid: idempotencyKeys.holderPid, holderServer: idempotencyKeys.holderServer })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, 'session-recorded-0001'));
    if (testStorage() === 'postgres') {
      expect(record?.holderPid).toBeGreaterThan(0);
      expect(record?.holderServer).toMatch(/^\d+@\d{4}-/);
    } else {
      expect(record).toEqual({ holderPid: null, holderServer: null });
    }
  });

  it('decisions.md Idempotency: "when the holder\'s database session is known to be gone (the primary failed over), the takeover is immediate"', async () => {
    const body = '{"name":"Depois da falha"}';
    // A fresh claim recorded by a session of another server (the primary before a failover).
    await ctx.db.insert(idempotencyKeys).values({
      apiKeyId: tenant.apiKey.id,
      companyId: tenant.companyId,
      key: 'failed-over-0001',
      requestHash: await orphanHash(body),
      state: 'in_flight',
      holder: 'old-primary-session',
      holderPid: 4242,
      holderServer: '1@2026-01-01 00:00:00+00',
      expiresAt: sql`now() + interval '24 hours'`,
    });
    const taken = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'failed-over-0001',
      rawBody: body,
    });
    expect(taken.statusCode).toBe(201);
    expect(taken.json().data.name).toBe('Depois da falha');
    const replayed = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'failed-over-0001',
      rawBody: body,
    });
    expect(replayed.headers['idempotency-replay']).toBe('true');
    expect(replayed.json().data.id).toBe(taken.json().data.id);
  });
  it('a claim whose session is gone, retried by 10 requests at once, is taken over once: one customer, every other answer a 409 in flight or the replay', async () => {
    const body = '{"name":"Corrida de Retomadas"}';
    await ctx.db.insert(idempotencyKeys).values({
      apiKeyId: tenant.apiKey.id,
      companyId: tenant.companyId,
      key: 'racing-takeover-0001',
      requestHash: await orphanHash(body),
      state: 'in_flight',
      holder: 'old-primary-session',
      holderPid: 4242,
      holderServer: '1@2026-01-01 00:00:00+00',
      expiresAt: sql`now() + interval '24 hours'`,
    });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        api(ctx.app, 'POST', '/customers', {
          key: tenant.key,
          idempotencyKey: 'racing-takeover-0001',
          rawBody: body,
        }),
      ),
    );
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers) {
      if (answer.statusCode === 201) continue;
      expect(answer.statusCode).toBe(409);
      expect(answer.json().error.code).toBe('idempotency_request_in_flight');
    }
    expect(new Set(created.map((a) => a.json().data.id)).size).toBe(1);
    expect(created.filter((a) => a.headers['idempotency-replay'] !== 'true')).toHaveLength(1);
    const rows = await ctx.db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.companyId, tenant.companyId), eq(customers.name, 'Corrida de Retomadas')));
    expect(rows).toHaveLength(1);
  });
});
