// Issue 38, goal 2 "Money never passes through a double", and decisions.md, Products: "a number is
// read by its own digits, never through a binary double". Bodies are sent as raw JSON text over
// real HTTP (JSON.stringify could not even write these literals), on both storages.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceItems, invoices, products } from '../src/db/schema.js';
import {
  DISCOUNT_PLACES,
  EXCHANGE_RATE_PLACES,
  LINE_TOO_LARGE,
  PRICE_PLACES,
  QUANTITY_PLACES,
} from '../src/invoices/service.js';
import { TOO_MANY_MONEY_DECIMALS } from '../src/money.js';
import { type ListeningApp, startListeningApp } from './helpers/client-server.js';
import { createTenant, newIdempotencyKey, type Tenant } from './helpers/context.js';
import { testStorage } from './helpers/database.js';
import { createCustomer, createProduct } from './helpers/invoices.js';

describe(`request bodies keep every number's own digits (${testStorage()})`, () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let customerId: number;
  let productId: number;

  beforeAll(async () => {
    server = await startListeningApp();
    tenant = await createTenant(server.db);
    customerId = await createCustomer(server.app, tenant, 'Cliente Exacto');
    productId = await createProduct(server.app, server.db, tenant, { name: 'Serviço' });
  });
  afterAll(() => server?.close());

  /** POST or PUT of raw JSON text. */
  async function send(method: string, path: string, text: string) {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tenant.key}`,
        'content-type': 'application/json',
        'idempotency-key': newIdempotencyKey('exact'),
      },
      body: text,
    });
    return { status: res.status, body: await res.json() };
  }
  const get = async (path: string) =>
    (await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${tenant.key}` } })).json();

  const product = (price: string, posPrice = 'null') =>
    `{"name":"Extremo","type":"GOODS","inventory":"NON_INVENTORY","price":${price},"pos_price":${posPrice}}`;

  async function productCount(): Promise<number> {
    return (await server.db.select({ id: products.id }).from(products)).length;
  }

  it('the largest amounts are stored as written, never rounded (99999999999999.99, 9007199254740993, 9999999999999999.99)', async () => {
    const created = await send('POST', '/products', product('99999999999999.99', '9007199254740993'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.price).toBe('99999999999999.99');
    expect(created.body.data.pos_price).toBe('9007199254740993.00');
    const id = created.body.data.id as number;
    const [row] = await server.db
      .select({ price: products.price, posPrice: products.posPrice })
      .from(products)
      .where(eq(products.id, id));
    expect(row).toEqual({ price: '99999999999999.99', posPrice: '9007199254740993.00' });
    const read = await get(`/products/${id}`);
    expect([read.data.price, read.data.pos_price]).toEqual(['99999999999999.99', '9007199254740993.00']);

    // Below 10^16 by its digits, though its nearest double is 10^16 itself.
    const updated = await send('PUT', `/products/${id}`, product('9999999999999999.99', '1.50'));
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data.price).toBe('9999999999999999.99');
    expect(updated.body.data.pos_price).toBe('1.50');
  });

  it('more decimals than allowed is a 422 naming the field, whatever the digits (4.350000000000000001)', async () => {
    const before = await productCount();
    const refused = await send(
      'POST',
      '/products',
      product('4.350000000000000001', '0.1000000000000000000001'),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('validation_failed');
    expect(refused.body.error.errors).toEqual({
      price: [TOO_MANY_MONEY_DECIMALS],
      pos_price: [TOO_MANY_MONEY_DECIMALS],
    });
    // 10^16 and beyond, and a third decimal hidden by the double's rounding near the limit.
    for (const price of ['10000000000000000', '1e16', '9999999999999999.999']) {
      const answer = await send('POST', '/products', product(price));
      expect(answer.status, price).toBe(422);
      expect(Object.keys(answer.body.error.errors), price).toEqual(['price']);
    }
    expect(await productCount()).toBe(before);
  });

  it('the contract holds: "12" is still a 422 (no coercion), malformed JSON is a 422', async () => {
    const text = await send('POST', '/products', product('"12"'));
    expect(text.status).toBe(422);
    expect(text.body.error.errors).toEqual({ price: ['deve ser do tipo number'] });
    for (const malformed of [
      '{"price": 1.}',
      '{"price": 01}',
      '{"price": .5}',
      '{"price": 1e}',
      '{"a":1,}',
    ]) {
      const answer = await send('POST', '/products', malformed);
      expect(answer.status, malformed).toBe(422);
      expect(answer.body.error.errors, malformed).toEqual({ body: ['JSON mal formado.'] });
    }
  });

  const draft = (line: string, extra = '') =>
    `{"customer_id":${customerId},"invoice_date":"2026-11-20","items":[{"product_id":${productId},${line}}]${extra}}`;

  it('invoice lines: each decimals rule on the literal (price 2, quantity 4, discount 4, exchange_rate 6)', async () => {
    const before = (await server.db.select({ id: invoices.id }).from(invoices)).length;
    const refused = await send(
      'POST',
      '/invoices',
      draft(
        '"quantity":0.30000000000000001,"price":4.350000000000000001,"discount":10.00000000000000001',
        ',"currency":"USD","exchange_rate":1.0000000000000000001',
      ),
    );
    expect(refused.status).toBe(422);
    expect(refused.body.error.errors).toEqual({
      'items.0.quantity': [QUANTITY_PLACES],
      'items.0.price': [PRICE_PLACES],
      'items.0.discount': [DISCOUNT_PLACES],
      exchange_rate: [EXCHANGE_RATE_PLACES],
    });
    expect((await server.db.select({ id: invoices.id }).from(invoices)).length).toBe(before);
  });

  it('invoice lines: the largest values are stored exactly, the line-total limit is exact too', async () => {
    const created = await send(
      'POST',
      '/invoices',
      draft(
        '"quantity":100,"price":99999999999999.99,"discount":0.0001',
        ',"currency":"USD","exchange_rate":999999999.999999',
      ),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const [line] = created.body.data.items;
    expect(line.price).toBe('99999999999999.99');
    // 100 x 99999999999999.99 = 9999999999999999.00, less 0.0001% (10000000000.00).
    expect(line.subtotal ?? created.body.data.subtotal).toBe('9999999999999999.00');
    expect(line.total).toBe('9999989999999999.00');
    const [stored] = await server.db
      .select({ price: invoiceItems.price, discountPercentage: invoiceItems.discountPercentage })
      .from(invoiceItems)
      .where(eq(invoiceItems.invoiceId, created.body.data.id));
    expect(stored).toEqual({ price: '99999999999999.99', discountPercentage: '0.0001' });
    const [invoice] = await server.db
      .select({ exchangeRate: invoices.exchangeRate })
      .from(invoices)
      .where(eq(invoices.id, created.body.data.id));
    expect(invoice?.exchangeRate).toBe('999999999.999999');

    // 101 x 99999999999999.99 = 10099999999999998.99: past 10^16, refused, not rounded down to fit.
    const tooLarge = await send('POST', '/invoices', draft('"quantity":101,"price":99999999999999.99'));
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body.error.errors).toEqual({ 'items.0': [LINE_TOO_LARGE] });
  });
});
