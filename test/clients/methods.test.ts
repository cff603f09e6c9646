// The TypeScript client (clients/typescript) against a real server on a port, on the current
// storage: every method, listAll across pages, money as decimal strings, and the errors that are
// never retried (422 with its field errors, 409 idempotency_key_reuse, 403 of a test key, 404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FetchFunction,
  type InvoiceLineCreate,
  PartnerApi,
  PartnerApiError,
  type PartnerApiOptions,
  responseOf,
} from '../../clients/typescript/src/index.js';
import { customers } from '../../src/db/schema.js';
import { issueInvoice, recordReceipt } from '../../src/operations/invoices.js';
import { type ListeningApp, startListeningApp } from '../helpers/client-server.js';
import { asOperator, createTenant, type Tenant } from '../helpers/context.js';

interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('TypeScript client: every method against a real server', () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let client: PartnerApi;
  let sent: SentRequest[];

  /** A client whose requests are remembered in `sent` (then sent with the platform's fetch). */
  function clientFor(key: string, options: Partial<PartnerApiOptions> = {}): PartnerApi {
    const recording: FetchFunction = (url, init) => {
      sent.push({ method: init.method, url, headers: init.headers, body: init.body });
      return fetch(url, init);
    };
    return new PartnerApi({
      apiKey: key,
      baseUrl: server.baseUrl,
      retryBaseDelayMs: 10,
      fetch: recording,
      ...options,
    });
  }

  /** The PartnerApiError a call fails with. */
  async function failure(call: Promise<unknown>): Promise<PartnerApiError> {
    const error = await call.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(PartnerApiError);
    return error as PartnerApiError;
  }

  beforeAll(async () => {
    server = await startListeningApp();
    tenant = await createTenant(server.db, { name: 'Cliente da Biblioteca, Lda' });
    sent = [];
    client = clientFor(tenant.key);
  });
  afterAll(() => server.close());

  it('ping: the key, its company and the rate-limit headers of the answer', async () => {
    const ping = await client.ping();
    expect(ping).toMatchObject({
      tenant_id: tenant.companyId,
      tenant_name: 'Cliente da Biblioteca, Lda',
      mode: 'live',
    });
    expect(responseOf(ping)).toEqual({
      status: 200,
      requestId: ping.request_id,
      replayed: false,
      rateLimit: { limit: expect.any(Number), remaining: expect.any(Number), retryAfterSeconds: null },
      attempts: 1,
    });
    expect(sent.at(-1)?.headers.authorization).toBe(`Bearer ${tenant.key}`);
    expect(sent.at(-1)?.headers).not.toHaveProperty('origin');
  });

  it('customers: create (a fresh UUID v4 key), get, update (only sent fields), list, listAll', async () => {
    sent = [];
    const created = await client.customers.create({
      name: 'Ana Macuácua',
      type: 'individual',
      email: 'ana@exemplo.co.mz',
      nuit: '123456789',
    });
    expect(created).toMatchObject({ name: 'Ana Macuácua', email: 'ana@exemplo.co.mz', nuit: '123456789' });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.method).toBe('POST');
    expect(sent[0]?.headers['idempotency-key']).toMatch(UUID_V4);
    expect(sent[0]?.headers['content-type']).toBe('application/json');
    expect(sent[0]?.body).toBe(
      '{"name":"Ana Macuácua","type":"individual","email":"ana@exemplo.co.mz","nuit":"123456789"}',
    );

    // Another write gets another key.
    const second = await client.customers.create({ name: 'Bento Cossa', type: 'company' });
    expect(sent[1]?.headers['idempotency-key']).toMatch(UUID_V4);
    expect(sent[1]?.headers['idempotency-key']).not.toBe(sent[0]?.headers['idempotency-key']);

    expect(await client.customers.get(created.id)).toEqual(created);
    expect(await client.customers.get(String(second.id))).toEqual(second);

    const updated = await client.customers.update(created.id, { phone: '+258 84 000 1111' });
    expect(updated).toMatchObject({ id: created.id, name: 'Ana Macuácua', phone: '+258 84 000 1111' });
    expect(sent.at(-1)?.method).toBe('PUT');

    const page = await client.customers.list({ type: 'company', per_page: 10 });
    expect(page.data.map((c) => c.id)).toEqual([second.id]);
    expect(page.pagination).toEqual({ total: 1, count: 1, per_page: 10, current_page: 1, last_page: 1 });
    expect(sent.at(-1)?.url).toBe(`${server.baseUrl}/customers?type=company&per_page=10`);

    const all = [];
    for await (const customer of client.customers.listAll({ search: 'ana mac' })) all.push(customer);
    expect(all.map((c) => c.id)).toEqual([created.id]);
  });

  it('a write with its own key, sent again, is replayed: the same record, nothing new', async () => {
    const key = `order-${Date.now()}-0001`;
    const first = await client.customers.create({ name: 'Pedido Repetido' }, { idempotencyKey: key });
    expect(responseOf(first)).toMatchObject({ status: 201, replayed: false });
    const again = await client.customers.create({ name: 'Pedido Repetido' }, { idempotencyKey: key });
    expect(responseOf(again)).toMatchObject({ status: 201, replayed: true });
    expect(again).toEqual(first);
    const page = await client.customers.list({ search: 'Pedido Repetido' });
    expect(page.pagination.total).toBe(1);
    expect(responseOf(page)).toMatchObject({ status: 200, replayed: false });
    expect(responseOf(page.data[0]!)).toBeUndefined();
  });

  it('concurrent calls each keep their own response details (nothing shared by the client)', async () => {
    const key = `order-${Date.now()}-0002`;
    await client.customers.create({ name: 'Pedido Concorrente' }, { idempotencyKey: key });
    const [replayed, fresh, ping] = await Promise.all([
      client.customers.create({ name: 'Pedido Concorrente' }, { idempotencyKey: key }),
      client.customers.create({ name: 'Pedido Novo' }),
      client.ping(),
    ]);
    expect(responseOf(replayed)).toMatchObject({ status: 201, replayed: true });
    expect(responseOf(fresh)).toMatchObject({ status: 201, replayed: false });
    expect(responseOf(ping)).toMatchObject({ status: 200, requestId: ping.request_id });
    const ids = [replayed, fresh, ping].map((result) => responseOf(result)?.requestId);
    expect(new Set(ids).size).toBe(3);
  });

  it('products: money goes as decimal strings, written digit for digit, and comes back as strings', async () => {
    sent = [];
    const product = await client.products.create({
      name: 'Consultoria fiscal',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: '1250.50',
      pos_price: '1300.00',
      sku: 'CONS-01',
    });
    expect(sent[0]?.body).toBe(
      '{"name":"Consultoria fiscal","type":"SERVICES","inventory":"NON_INVENTORY","price":1250.50,"pos_price":1300.00,"sku":"CONS-01"}',
    );
    expect(product).toMatchObject({ price: '1250.50', pos_price: '1300.00', sku: 'CONS-01', stock: null });
    expect(typeof product.price).toBe('string');

    const goods = await client.products.create({
      name: 'Cimento 50kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: '0.10',
    });
    expect(goods).toMatchObject({ price: '0.10', stock: 0, tracks_inventory: true });

    const updated = await client.products.update(product.id, {
      name: 'Consultoria fiscal',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: '99.99',
      pos_price: null,
    });
    expect(sent.at(-1)?.body).toBe(
      '{"name":"Consultoria fiscal","type":"SERVICES","inventory":"NON_INVENTORY","price":99.99,"pos_price":null}',
    );
    expect(updated).toMatchObject({ id: product.id, price: '99.99', pos_price: null, sku: 'CONS-01' });
    expect(await client.products.get(product.id)).toEqual(updated);

    const page = await client.products.list({ search: 'cimento', is_for_sale: true });
    expect(page.data.map((p) => p.id)).toEqual([goods.id]);
    expect(sent.at(-1)?.url).toContain('is_for_sale=true');
    const all = [];
    for await (const item of client.products.listAll({ sort: 'name' })) all.push(item.name);
    expect(all).toEqual(['Cimento 50kg', 'Consultoria fiscal']);
  });

  it('invoices and payments: a draft from decimal line prices, its items, lists, and receipts', async () => {
    const customer = await client.customers.create({ name: 'Escola Primária da Matola' });
    const product = await client.products.create({
      name: 'Manutenção',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: '100.00',
    });
    sent = [];
    const invoice = await client.invoices.create({
      customer_id: customer.id,
      invoice_date: '2026-02-01',
      reference: 'PO-77',
      items: [
        { product_id: product.id, quantity: 3, price: '1500.25' },
        { product_id: product.id, quantity: 1, price: '0.10', discount: 10 },
      ],
    });
    expect(sent[0]?.body).toContain('"items":[{"product_id":');
    expect(sent[0]?.body).toContain('"quantity":3,"price":1500.25}');
    expect(sent[0]?.body).toContain('"quantity":1,"price":0.10,"discount":10}');
    expect(invoice).toMatchObject({
      status: 'draft',
      reference: 'PO-77',
      subtotal: '4500.85',
      discount: '0.01',
      grand_total: '4500.84',
      remaining_amount: '4500.84',
      customer: { id: customer.id, name: 'Escola Primária da Matola' },
    });
    expect(invoice.invoice_code).toMatch(/^DRAFT-/);
    expect(invoice.items.map((item) => [item.price, item.total])).toEqual([
      ['1500.25', '4500.75'],
      ['0.10', '0.09'],
    ]);
    expect(await client.invoices.get(invoice.id)).toEqual(invoice);

    const page = await client.invoices.list({ customer_id: customer.id, status: 'draft' });
    expect(page.data.map((i) => i.id)).toEqual([invoice.id]);
    expect(page.data[0]).not.toHaveProperty('items');

    // Receipts are recorded in the application, then read through the API.
    await issueInvoice(asOperator(server.db), invoice.id);
    await recordReceipt(asOperator(server.db), {
      invoiceId: invoice.id,
      amount: '1000.00',
      date: '2026-02-03',
    });
    await recordReceipt(asOperator(server.db), {
      invoiceId: invoice.id,
      amount: '500.84',
      date: '2026-02-04',
    });
    const payments = await client.payments.list({ invoice_id: invoice.id, sort: 'payment_date' });
    expect(payments.data.map((p) => [p.payment_date, p.amount])).toEqual([
      ['2026-02-03', '1000.00'],
      ['2026-02-04', '500.84'],
    ]);
    const [first] = payments.data;
    expect(await client.payments.get(first!.id)).toEqual(first);
    const all = [];
    for await (const payment of client.payments.listAll({ invoice_id: invoice.id })) all.push(payment.amount);
    expect(all.sort()).toEqual(['1000.00', '500.84']);
    const invoices = [];
    for await (const item of client.invoices.listAll({ status: 'partially_paid' })) invoices.push(item);
    expect(invoices.map((i) => [i.id, i.paid_amount])).toEqual([[invoice.id, '1500.84']]);
  });

  it('listAll walks more than 3 pages of 100 and yields exactly `total` items', async () => {
    const big = await createTenant(server.db, { name: 'Muitos Clientes, SA' });
    await server.db
      .insert(customers)
      .values(Array.from({ length: 357 }, (_, i) => ({ companyId: big.companyId, name: `Cliente ${i}` })));
    sent = [];
    const bigClient = clientFor(big.key);
    const { pagination } = await bigClient.customers.list();
    const ids: number[] = [];
    for await (const customer of bigClient.customers.listAll()) ids.push(customer.id);
    expect(pagination.total).toBe(357);
    expect(ids).toHaveLength(pagination.total);
    expect(new Set(ids).size).toBe(pagination.total);
    const pages = sent.slice(1).map((request) => new URL(request.url).search);
    expect(pages).toEqual([
      '?page=1&per_page=100',
      '?page=2&per_page=100',
      '?page=3&per_page=100',
      '?page=4&per_page=100',
    ]);

    // A smaller page size of your choice: the same items.
    sent = [];
    const small: number[] = [];
    for await (const customer of bigClient.customers.listAll({ per_page: 90, sort: 'created_at' }))
      small.push(customer.id);
    expect(new Set(small)).toEqual(new Set(ids));
    expect(sent.map((request) => new URL(request.url).searchParams.get('page'))).toEqual([
      '1',
      '2',
      '3',
      '4',
    ]);
  });

  it('asks for compressed answers: a page comes as brotli and decodes to the plain page', async () => {
    const big = await createTenant(server.db, { name: 'Clientes Comprimidos, SA' });
    await server.db
      .insert(customers)
      .values(Array.from({ length: 60 }, (_, i) => ({ companyId: big.companyId, name: `Cliente ${i}` })));
    const encodings: (string | null)[] = [];
    sent = [];
    const compressed = clientFor(big.key, {
      fetch: async (url, init) => {
        sent.push({ method: init.method, url, headers: init.headers, body: init.body });
        const response = await fetch(url, init);
        encodings.push(response.headers.get('content-encoding'));
        return response;
      },
    });
    const page = await compressed.customers.list({ per_page: 100 });
    expect(sent[0]!.headers['accept-encoding']).toBe('br, gzip');
    expect(encodings).toEqual(['br']);
    const plain = await fetch(`${server.baseUrl}/customers?per_page=100`, {
      headers: { authorization: `Bearer ${big.key}`, 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const plainPage = (await plain.json()) as { data: unknown[] };
    expect(page.data).toEqual(plainPage.data);
    expect(page.data.length).toBeGreaterThanOrEqual(60);
  });

  it('a 422 is a PartnerApiError with the field errors, sent once', async () => {
    const customer = await client.customers.create({ name: 'Cliente do 422' });
    sent = [];
    const error = await failure(
      client.invoices.create({
        customer_id: customer.id,
        invoice_date: '2026-02-01',
        // A line without its product, as a program built without the types could send it.
        items: [{ quantity: 1, price: '12,50' } as InvoiceLineCreate],
      }),
    );
    // "12,50" is not a decimal: it travels as a string, and the API names the field.
    expect(sent[0]?.body).toContain('"price":"12,50"');
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(error.errors).toHaveProperty(['items.0.price']);
    expect(error.errors).toHaveProperty(['items.0.product_id']);
    expect(error.message).toEqual(expect.any(String));
    expect(error.hint).toEqual(expect.any(String));
    expect(error.docUrl).toMatch(/\/errors#validation_failed$/);
    expect(error.requestId).toMatch(/^req_/);
    expect(error.attempts).toBe(1);
    expect(sent).toHaveLength(1);
  });

  it('a reused key with another body is idempotency_key_reuse, never retried', async () => {
    const key = `reuse-${Date.now()}-0001`;
    await client.customers.create({ name: 'Primeiro Corpo' }, { idempotencyKey: key });
    sent = [];
    const error = await failure(client.customers.create({ name: 'Segundo Corpo' }, { idempotencyKey: key }));
    expect(error).toMatchObject({ status: 409, code: 'idempotency_key_reuse', attempts: 1 });
    expect(sent).toHaveLength(1);
    expect((await client.customers.list({ search: 'Segundo Corpo' })).pagination.total).toBe(0);
  });

  it('other 4xx are never retried: 404, invalid query, a test key writing, a bad idempotency key', async () => {
    sent = [];
    expect(await failure(client.customers.get(99_999_999))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
      attempts: 1,
    });
    const other = await createTenant(server.db, { name: 'Outra Empresa' });
    const foreign = await clientFor(other.key).customers.create({ name: 'Cliente Alheio' });
    expect(await failure(client.customers.get(foreign.id))).toMatchObject({ code: 'resource_not_found' });
    const query = await failure(client.invoices.list({ sort: 'amount' as never }));
    expect(query).toMatchObject({ status: 422, code: 'invalid_query_parameter', errors: undefined });
    expect(query.hint).toContain('invoice_date');
    expect(await failure(client.customers.create({ name: 'x' }, { idempotencyKey: 'short' }))).toMatchObject({
      status: 400,
      code: 'idempotency_key_invalid',
    });
    expect(sent).toHaveLength(5);

    const testKey = await createTenant(server.db, { name: 'Modo Teste', mode: 'test' });
    const testClient = clientFor(testKey.key);
    sent = [];
    expect(await testClient.ping()).toMatchObject({ mode: 'test' });
    expect(await failure(testClient.customers.create({ name: 'Nunca Escrito' }))).toMatchObject({
      status: 403,
      code: 'test_mode_read_only',
      attempts: 1,
    });
    expect(sent).toHaveLength(2);
    expect((await testClient.customers.list({ search: 'Nunca Escrito' })).pagination.total).toBe(0);
  });

  it('a wrong key is invalid_api_key', async () => {
    const error = await failure(clientFor('svc_sk_live_not-a-real-key').ping());
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', attempts: 1 });
  });
});
