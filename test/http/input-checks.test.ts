// One 422 names every problem of a body: schema failures and the route's own rules together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTax } from '../../src/operations/taxes.js';
import {
  api,
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';

const key = () => newIdempotencyKey('body-rules');

describe('schema errors and own rules in one answer', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let productId: number;
  let foreignProductId: number;
  let foreignTaxId: number;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
    other = await createTenant(ctx.db, { name: 'Outra' });
    const product = { name: 'Consultoria', type: 'SERVICES', inventory: 'NON_INVENTORY', price: 100 };
    productId = (
      await api(ctx.app, 'POST', '/products', { key: tenant.key, idempotencyKey: key(), body: product })
    ).json().data.id;
    foreignProductId = (
      await api(ctx.app, 'POST', '/products', { key: other.key, idempotencyKey: key(), body: product })
    ).json().data.id;
    foreignTaxId = (await createTax(ctx.db, { companyId: other.companyId, name: 'IVA', rate: '16' })).id;
    await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: key(),
      body: { name: 'A', email: 'a@x.co.mz' },
    });
  });
  afterAll(() => ctx.close());

  const errorsOf = (res: Awaited<ReturnType<typeof api>>) => {
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
    return res.json().error.errors as Record<string, string[]>;
  };

  it('customers: a wrong type and a taken e-mail', async () => {
    const res = await api(ctx.app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: key(),
      body: { name: 5, email: 'A@X.co.mz' },
    });
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['email', 'name']);
  });

  it('products: an unknown field, too many decimals and a foreign tax', async () => {
    const res = await api(ctx.app, 'POST', '/products', {
      key: tenant.key,
      idempotencyKey: key(),
      body: {
        name: 'X',
        type: 'GOODS',
        inventory: 'INVENTORY',
        price: 1.234,
        tax_id: foreignTaxId,
        stock: 3,
      },
    });
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['price', 'stock', 'tax_id']);
  });

  it('invoices: missing fields, missing and foreign products, foreign tax and dates, all at once', async () => {
    const res = await api(ctx.app, 'POST', '/invoices', {
      key: tenant.key,
      idempotencyKey: key(),
      body: {
        customer_id: 1,
        invoice_date: '2026-11-20',
        due_date: '2026-11-01',
        items: [
          { quantity: 1, price: 10 },
          { product_id: productId, quantity: 1 },
          { product_id: foreignProductId, quantity: 1, price: 10, tax_id: foreignTaxId },
          { product_id: productId, quantity: 1, price: 10.005, unit_cost: 2 },
          { product_id: 999999, quantity: 1, price: 10 },
        ],
      },
    });
    expect(errorsOf(res)).toEqual({
      due_date: [expect.any(String)],
      'items.0.product_id': [expect.any(String)],
      'items.1.price': ['é obrigatório'],
      'items.2.product_id': [expect.any(String)],
      'items.2.tax_id': [expect.any(String)],
      'items.3.price': [expect.any(String)],
      'items.3.unit_cost': ['campo não permitido'],
      'items.4.product_id': [expect.any(String)],
    });
    // Contract 2.6: "a nonexistent id and another company's id give an identical 422 message".
    expect(errorsOf(res)['items.2.product_id']).toEqual(errorsOf(res)['items.4.product_id']);
    // A missing product_id has its own message (what to do without one).
    expect(errorsOf(res)['items.0.product_id']).not.toEqual(errorsOf(res)['items.2.product_id']);
  });
});
