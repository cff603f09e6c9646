// A replayed answer: a stored error carries the new request's id in its body, equal to the new
// X-Request-Id (contract section 7); a replayed success is the stored bytes, exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';
import { createRouteFixtures, type RouteFixtures } from '../helpers/routes.js';

describe(`replays and the request id (${testStorage()})`, () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let fixtures: RouteFixtures;
  let foreignCustomerId: number;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    fixtures = await createRouteFixtures(ctx.app, ctx.db, tenant);
    const res = await api(ctx.app, 'POST', '/customers', {
      key: other.key,
      idempotencyKey: 'foreign-customer-0001',
      body: { name: 'De Outra Empresa' },
    });
    foreignCustomerId = res.json().data.id;
  });
  afterAll(() => ctx.close());

  it('a stored 404 is replayed with the new request id in body and header', async () => {
    const request = {
      key: tenant.key,
      idempotencyKey: 'stored-404-0001',
      body: {
        customer_id: foreignCustomerId,
        invoice_date: '2026-11-20',
        items: [{ product_id: fixtures.productId, quantity: 1, price: 10 }],
      },
    };
    const first = await api(ctx.app, 'POST', '/invoices', request);
    expect(first.statusCode).toBe(404);
    expect(first.json().error.request_id).toBe(first.headers['x-request-id']);

    const again = await api(ctx.app, 'POST', '/invoices', request);
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(again.json().error.request_id).toBe(again.headers['x-request-id']);
    // Everything else is the stored answer.
    const { request_id: _first, ...firstRest } = first.json().error;
    const { request_id: _again, ...againRest } = again.json().error;
    expect(againRest).toEqual(firstRest);
  });

  it('a replayed success is the stored bytes, exactly', async () => {
    const request = { key: tenant.key, idempotencyKey: 'stored-201-0001', body: { name: 'Replay Exacto' } };
    const first = await api(ctx.app, 'POST', '/customers', request);
    expect(first.statusCode).toBe(201);
    const again = await api(ctx.app, 'POST', '/customers', request);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
  });
});
