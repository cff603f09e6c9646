// The request pipeline of decisions.md, in order: generic 404, X-Request-Id, Origin, the 401s,
// partner_api_disabled, test_mode_read_only, insufficient_scope, then idempotency headers.
import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiKeys } from '../../src/db/schema.js';
import { installPipeline } from '../../src/http/pipeline.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../src/operations/api-keys.js';
import { createCompany, setPartnerApi } from '../../src/operations/companies.js';
import {
  api,
  asOperator,
  createTenant,
  startTestApp,
  TEST_DOCS_URL,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';

describe('request pipeline', () => {
  let ctx: TestContext;
  let tenant: Tenant;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Farmácia Polana' });
  });
  afterAll(() => ctx.close());

  async function expectError(res: Awaited<ReturnType<typeof api>>, status: number, code: string) {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toEqual({
      code,
      message: expect.any(String),
      hint: expect.any(String),
      doc_url: `${TEST_DOCS_URL}/errors#${code}`,
      request_id: res.headers['x-request-id'],
    });
    return body.error;
  }

  it('answers with the ping result and a request id', async () => {
    const res = await api(ctx.app, 'GET', '/ping', { key: tenant.key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        tenant_id: tenant.companyId,
        tenant_name: 'Farmácia Polana',
        mode: 'live',
        scopes: tenant.apiKey.scopes,
        customers_visible: 0,
        request_id: res.headers['x-request-id'],
      },
    });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('gives the framework 404 (no envelope) to every route that is not one of the 14', async () => {
    for (const [method, path] of [
      ['DELETE', '/customers/1'],
      ['POST', '/payments'],
      ['PUT', '/invoices/1'],
      ['GET', '/nothing'],
      ['PATCH', '/products/1'],
      ['HEAD', '/ping'],
    ] as const) {
      const res = await api(ctx.app, method, path, { key: tenant.key, idempotencyKey: 'abcdefgh12' });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      if (method !== 'HEAD') expect(res.json()).not.toHaveProperty('error.code');
    }
  });

  it('refuses any Origin before looking at the key', async () => {
    const res = await api(ctx.app, 'GET', '/ping', {
      key: 'nonsense',
      headers: { origin: 'https://shop.example' },
    });
    await expectError(res, 403, 'browser_use_forbidden');
  });

  it('refuses missing, malformed and unknown keys alike', async () => {
    const unknown = `svc_sk_live_${'A'.repeat(40)}`;
    for (const headers of [
      {} as Record<string, string>,
      { authorization: tenant.key },
      { authorization: `bearer ${tenant.key}` },
      { authorization: `Bearer ${tenant.key}x!` },
      { authorization: `Bearer ${unknown}` },
      { authorization: 'Basic dXNlcjpwYXNz' },
    ]) {
      await expectError(await api(ctx.app, 'GET', '/ping', { headers }), 401, 'invalid_api_key');
    }
  });

  // Keys are remembered for at most a second (src/keys/key-cache.ts); a change is announced at
  // once, so this waits a few milliseconds in practice, and never more than the second.
  const withinASecond = { timeout: 1500, interval: 20 };
  async function eventuallyRefused(key: string, status: number, code: string) {
    await vi.waitFor(
      async () => expectError(await api(ctx.app, 'GET', '/ping', { key }), status, code),
      withinASecond,
    );
  }

  it('refuses revoked and expired keys within a second', async () => {
    const revoked = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId });
    expect((await api(ctx.app, 'GET', '/ping', { key: revoked.key })).statusCode).toBe(200);
    await revokeApiKey(asOperator(ctx.db), revoked.id);
    await eventuallyRefused(revoked.key, 401, 'api_key_revoked');

    const expired = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId, days: 1 });
    await ctx.db
      .update(apiKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(sql`id = ${expired.id}`);
    await expectError(await api(ctx.app, 'GET', '/ping', { key: expired.key }), 401, 'api_key_expired');
  });

  it('refuses keys of a company whose API is disabled, and lets them in once enabled', async () => {
    const company = await createCompany(ctx.db, { name: 'Sem API' });
    const key = await createApiKey(asOperator(ctx.db), { companyId: company.id });
    await expectError(await api(ctx.app, 'GET', '/ping', { key: key.key }), 403, 'partner_api_disabled');
    await setPartnerApi(ctx.db, company.id, true);
    await vi.waitFor(
      async () => expect((await api(ctx.app, 'GET', '/ping', { key: key.key })).statusCode).toBe(200),
      withinASecond,
    );
    await setPartnerApi(ctx.db, company.id, false);
    await eventuallyRefused(key.key, 403, 'partner_api_disabled');
  });

  it('lets test keys read but never write, whatever their scopes', async () => {
    const test = await createApiKey(asOperator(ctx.db), {
      companyId: tenant.companyId,
      mode: 'test',
      scopes: ['all'],
    });
    expect(test.key.startsWith('svc_sk_test_')).toBe(true);
    const ping = await api(ctx.app, 'GET', '/ping', { key: test.key });
    expect(ping.json().data.mode).toBe('test');
    await expectError(
      await api(ctx.app, 'POST', '/customers', { key: test.key, body: { name: 'X' } }),
      403,
      'test_mode_read_only',
    );
    // No sandbox: a test key reads the company's real data, exactly what a live key reads.
    const created = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'real-data-0001',
      body: { name: 'Cliente Real' },
    });
    expect(created.statusCode).toBe(201);
    const viaTest = await api(ctx.app, 'GET', `/customers/${created.json().data.id}`, { key: test.key });
    expect(viaTest.statusCode).toBe(200);
    expect(viaTest.json()).toEqual(created.json());
  });

  it('names the missing scope', async () => {
    const readOnly = await createApiKey(asOperator(ctx.db), {
      companyId: tenant.companyId,
      scopes: ['products:read'],
    });
    const error = await expectError(
      await api(ctx.app, 'GET', '/ping', { key: readOnly.key }),
      403,
      'insufficient_scope',
    );
    expect(error.hint).toContain('customers:read');
    const write = await expectError(
      await api(ctx.app, 'POST', '/customers', { key: readOnly.key, body: { name: 'X' } }),
      403,
      'insufficient_scope',
    );
    expect(write.hint).toContain('customers:write');
  });

  it('records when a key was last used', async () => {
    const fresh = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId });
    const before = (await listApiKeys(asOperator(ctx.db), tenant.companyId)).find((k) => k.id === fresh.id);
    expect(before?.last_used_at).toBeNull();
    await api(ctx.app, 'GET', '/ping', { key: fresh.key });
    const after = (await listApiKeys(asOperator(ctx.db), tenant.companyId)).find((k) => k.id === fresh.id);
    expect(after?.last_used_at).not.toBeNull();
    expect(JSON.stringify(after)).not.toContain(fresh.key);
  });

  it('applies the checks in the documented order', async () => {
    // Origin beats a bad key; a bad key beats everything after it.
    const origin = await api(ctx.app, 'POST', '/customers', { headers: { origin: 'x' }, body: {} });
    expect(origin.json().error.code).toBe('browser_use_forbidden');
    // test mode beats scope; scope beats the idempotency header.
    const test = await createApiKey(asOperator(ctx.db), {
      companyId: tenant.companyId,
      mode: 'test',
      scopes: ['customers:read'],
    });
    expect((await api(ctx.app, 'POST', '/customers', { key: test.key })).json().error.code).toBe(
      'test_mode_read_only',
    );
    const readOnly = await createApiKey(asOperator(ctx.db), {
      companyId: tenant.companyId,
      scopes: ['customers:read'],
    });
    expect((await api(ctx.app, 'POST', '/customers', { key: readOnly.key })).json().error.code).toBe(
      'insufficient_scope',
    );
    expect((await api(ctx.app, 'POST', '/customers', { key: tenant.key })).json().error.code).toBe(
      'idempotency_key_required',
    );
  });
});

describe('internal failures', () => {
  it('answer the generic 500 with a request id and no internals', async () => {
    const ctx = await startTestApp();
    const tenant = await createTenant(ctx.db);
    // Break the customers table under the running app: the query fails inside the handler.
    await ctx.db.execute(sql`alter table customers rename to customers_gone`);
    const res = await api(ctx.app, 'GET', '/customers', { key: tenant.key });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: 'Internal Server Error',
    });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.body).not.toMatch(/customers|relation|sql/i);
    await ctx.close();
  });
});

describe('installing the pipeline', () => {
  it('refuses at start-up a route that declares no scope', async () => {
    const app = Fastify();
    app.register(async (api) => {
      installPipeline(api);
      api.get('/forgotten', async () => ({ data: null }));
    });
    await expect(app.ready()).rejects.toThrow('route GET /forgotten declares no scope');
    await app.close().catch(() => {});
  });
});
