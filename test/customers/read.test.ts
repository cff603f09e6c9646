import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers } from '../../src/db/schema.js';
import { createGlobalCustomer } from '../../src/operations/global-customers.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';

describe('customers: reads', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Loja Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    await ctx.db.insert(customers).values([
      {
        companyId: tenant.companyId,
        name: 'João Conceição',
        email: 'joao@exemplo.co.mz',
        nuit: '400123456',
        type: 'individual',
      },
      {
        companyId: tenant.companyId,
        name: 'Mcel SA',
        email: 'geral@mcel.co.mz',
        type: 'company',
        accountId: 99,
      },
      { companyId: other.companyId, name: 'Cliente Alheio', email: 'alheio@exemplo.co.mz' },
    ]);
    await createGlobalCustomer(ctx.db, { name: 'Consumidor Final' });
  });
  afterAll(() => ctx.close());

  it('lists own and global customers, never another company', async () => {
    const res = await api(ctx.app, 'GET', '/customers', { key: tenant.key });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((c: { name: string }) => c.name).sort()).toEqual([
      'Consumidor Final',
      'João Conceição',
      'Mcel SA',
    ]);
    expect(body.pagination).toEqual({ total: 3, count: 3, per_page: 25, current_page: 1, last_page: 1 });
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        'address',
        'contact_number',
        'created_at',
        'email',
        'id',
        'name',
        'nuit',
        'phone',
        'type',
        'updated_at',
      ].sort(),
    );
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('counts own and global customers in /ping customers_visible', async () => {
    const res = await api(ctx.app, 'GET', '/ping', { key: tenant.key });
    expect(res.json().data.customers_visible).toBe(3);
    const foreign = await api(ctx.app, 'GET', '/ping', { key: other.key });
    expect(foreign.json().data.customers_visible).toBe(2);
  });

  it('searches without regard to case or accents', async () => {
    const res = await api(ctx.app, 'GET', '/customers?search=conceicao', { key: tenant.key });
    expect(res.json().data.map((c: { name: string }) => c.name)).toEqual(['João Conceição']);
  });

  it('answers a foreign id exactly like a missing one', async () => {
    const foreignId = (await api(ctx.app, 'GET', '/customers', { key: other.key }))
      .json()
      .data.find((c: { name: string }) => c.name === 'Cliente Alheio').id;
    const a = await api(ctx.app, 'GET', `/customers/${foreignId}`, { key: tenant.key });
    const b = await api(ctx.app, 'GET', '/customers/999999', { key: tenant.key });
    const c = await api(ctx.app, 'GET', '/customers/abc', { key: tenant.key });
    for (const res of [a, b, c]) {
      expect(res.statusCode).toBe(404);
      const { request_id, ...rest } = res.json().error;
      expect(request_id).toBe(res.headers['x-request-id']);
      expect(rest).toEqual({
        code: 'resource_not_found',
        message: 'O recurso pedido não existe.',
        hint: expect.any(String),
        doc_url: 'https://docs.test/partner-api/v1/errors#resource_not_found',
      });
    }
  });

  it('refuses a bad sort with the valid values in the hint', async () => {
    const res = await api(ctx.app, 'GET', '/customers?sort=email', { key: tenant.key });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('invalid_query_parameter');
    expect(res.json().error.hint).toContain('name, created_at, updated_at');
  });

  it('answers an unknown route with the generic 404', async () => {
    const res = await api(ctx.app, 'DELETE', '/customers/1', { key: tenant.key });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Not Found');
  });
});
