// Issue 38, goal 2: the extreme literals through the TypeScript client (clients/typescript), which
// writes decimal strings as JSON number literals digit for digit, against a real server on a port,
// on the current storage: amounts past a binary double's 15 digits are stored as written, never
// rounded, and more decimals than allowed is the API's 422 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FetchFunction, PartnerApi, PartnerApiError } from '../../clients/typescript/src/index.js';
import { type ListeningApp, startListeningApp } from '../helpers/client-server.js';
import { createTenant, type Tenant } from '../helpers/context.js';

describe('TypeScript client: the extreme literals, digit for digit', () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let client: PartnerApi;
  const bodies: string[] = [];

  beforeAll(async () => {
    server = await startListeningApp();
    tenant = await createTenant(server.db, { name: 'Dinheiro Extremo TS, Lda' });
    const recording: FetchFunction = (url, init) => {
      if (init.body !== undefined) bodies.push(init.body);
      return fetch(url, init);
    };
    client = new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl, fetch: recording });
  });
  afterAll(() => server?.close());

  it('99999999999999.99, 9999999999999999.99 and 9007199254740993 are stored as written', async () => {
    const product = await client.products.create({
      name: 'Extremo TS',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: '9999999999999999.99',
      pos_price: '9007199254740993',
    });
    expect([product.price, product.pos_price]).toEqual(['9999999999999999.99', '9007199254740993.00']);
    expect(bodies.at(-1)).toContain('"price":9999999999999999.99,');
    expect(bodies.at(-1)).toContain('"pos_price":9007199254740993');
    const updated = await client.products.update(product.id, {
      name: 'Extremo TS',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: '99999999999999.99',
    });
    expect(updated.price).toBe('99999999999999.99');
    expect((await client.products.get(product.id)).price).toBe('99999999999999.99');

    const customer = await client.customers.create({ name: 'Cliente Extremo TS' });
    const invoice = await client.invoices.create({
      customer_id: customer.id,
      invoice_date: '2026-03-01',
      items: [{ product_id: product.id, quantity: 100, price: '99999999999999.99' }],
    });
    expect(invoice.items.map((item) => [item.price, item.total])).toEqual([
      ['99999999999999.99', '9999999999999999.00'],
    ]);
    expect(invoice.grand_total).toBe('9999999999999999.00');
  });

  it('4.350000000000000001 is the API 422 naming price, never 4.35', async () => {
    const error = await client.products
      .create({
        name: 'Extremo TS',
        type: 'SERVICES',
        inventory: 'NON_INVENTORY',
        price: '4.350000000000000001',
      })
      .then(
        () => null,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(PartnerApiError);
    expect((error as PartnerApiError).status).toBe(422);
    expect(Object.keys((error as PartnerApiError).errors ?? {})).toEqual(['price']);
    expect(bodies.at(-1)).toContain('"price":4.350000000000000001}');
  });
});
