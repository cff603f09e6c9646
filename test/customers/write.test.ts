import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGlobalCustomer } from '../../src/operations/global-customers.js';
import {
  api,
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';

const newKey = () => newIdempotencyKey('customer-test');

describe('customers: writes', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Loja Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra' });
  });
  afterAll(() => ctx.close());

  it('creates a customer with defaults and every field present', async () => {
    const res = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: newKey(),
      body: { name: 'Ana Macuácua', email: 'ana@exemplo.co.mz', nuit: '400123456' },
    });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data).toMatchObject({ name: 'Ana Macuácua', type: 'individual', phone: null, address: null });
    expect(data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+02:00$/);
    const read = await api(ctx.app, 'GET', `/customers/${data.id}`, { key: tenant.key });
    expect(read.json().data).toEqual(data);
  });

  it('replays the same key and body, refuses another body', async () => {
    const key = newKey();
    const raw = '{"name":"Carlos Tembe","email":"carlos@exemplo.co.mz"}';
    const first = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    const second = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotency-replay']).toBe('true');
    expect(second.body).toBe(first.body);
    const reordered = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: '{"email":"carlos@exemplo.co.mz","name":"Carlos Tembe"}',
    });
    expect(reordered.statusCode).toBe(409);
    expect(reordered.json().error.code).toBe('idempotency_key_reuse');
  });

  it('refuses unknown fields, duplicates and bad types, listing every problem', async () => {
    const res = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: newKey(),
      body: { name: 5, tenant_id: 3, type: 'person' },
    });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().error.errors).sort()).toEqual(['name', 'tenant_id', 'type']);

    const key = newKey();
    await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: newKey(),
      body: { name: 'X', email: 'dup@x.co.mz' },
    });
    const dup = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: key,
      body: { name: 'Y', email: 'DUP@x.co.mz' },
    });
    expect(dup.statusCode).toBe(422);
    expect(dup.json().error.errors).toEqual({ email: [expect.stringContaining('e-mail')] });
    // A 422 stores nothing: the same key works with a fixed body.
    const fixed = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: key,
      body: { name: 'Y', email: 'y@x.co.mz' },
    });
    expect(fixed.statusCode).toBe(201);
    // Another company may use the same e-mail.
    const elsewhere = await api(ctx.app, 'POST', '/customers', {
      key: other.key,
      idempotencyKey: newKey(),
      body: { name: 'Z', email: 'dup@x.co.mz' },
    });
    expect(elsewhere.statusCode).toBe(201);
  });

  it('updates only the fields sent; global and foreign customers are 404', async () => {
    const created = (
      await api(ctx.app, 'POST', '/customers', {
        key: tenant.key,
        idempotencyKey: newKey(),
        body: { name: 'Rui', phone: '+258 84 000 0000' },
      })
    ).json().data;
    const res = await api(ctx.app, 'PUT', `/customers/${created.id}`, {
      key: tenant.key,
      idempotencyKey: newKey(),
      body: { address: 'Av. Julius Nyerere, Maputo' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Rui',
      phone: '+258 84 000 0000',
      address: 'Av. Julius Nyerere, Maputo',
    });

    const global = await createGlobalCustomer(ctx.db, { name: 'Consumidor Final' });
    for (const id of [global.id, created.id]) {
      const key = id === created.id ? other.key : tenant.key;
      const put = await api(ctx.app, 'PUT', `/customers/${id}`, {
        key,
        idempotencyKey: newKey(),
        body: { name: 'Hack' },
      });
      expect(put.statusCode).toBe(404);
    }
    // 404 comes before the body's own validation.
    const bad = await api(ctx.app, 'PUT', `/customers/${global.id}`, {
      key: tenant.key,
      idempotencyKey: newKey(),
      rawBody: '{oops',
    });
    expect(bad.statusCode).toBe(404);
  });

  it('checks the idempotency header before the body', async () => {
    const none = await api(ctx.app, 'POST', '/customers', { key: tenant.key, rawBody: '{oops' });
    expect(none.json().error.code).toBe('idempotency_key_required');
    const short = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'short',
      body: {},
    });
    expect(short.json().error.code).toBe('idempotency_key_invalid');
    const malformed = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: newKey(),
      rawBody: '{oops',
    });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().error.errors).toHaveProperty('body');
    const text = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: newKey(),
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(422);
  });
});

describe('customers: body limits', () => {
  it('answers a body over the size limit with validation_failed and creates nothing', async () => {
    const ctx = await startTestApp({ BODY_LIMIT_BYTES: '200' });
    const tenant = await createTenant(ctx.db);
    const res = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: 'too-large-0001',
      body: { name: 'X'.repeat(300) },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
    expect(res.json().error.errors).toHaveProperty('body');
    const list = await api(ctx.app, 'GET', '/customers', { key: tenant.key });
    expect(list.json().data).toEqual([]);
    await ctx.close();
  });
});
