import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import {
  accountingEntries,
  fiscalSequences,
  invoiceItems,
  invoices,
  products,
  stockMovements,
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
} from '../../src/db/schema.js';
import { ApiError } from '../../src/errors.js';
import {
  createDraftInvoice,
  DISCOUNT_PLACES,
  DUE_BEFORE_INVOICE_DATE,
  EXCHANGE_RATE_PLACES,
  INVOICE_TOO_LARGE,
  LINE_TOO_LARGE,
  PRICE_PLACES,
  PRODUCT_REQUIRED,
  QUANTITY_PLACES,
  UNKNOWN_PRODUCT,
  UNKNOWN_TAX,
} from '../../src/invoices/service.js';
import { createGlobalCustomer } from '../../src/operations/global-customers.js';
import {
  api,
  companyContext,
  createTenant,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import {
  createCompanyTax,
  createCustomer,
  createDraft,
  createProduct,
  type DraftBody,
  INVOICE_KEYS,
  insertWithDraftCode,
  newKey,
} from '../helpers/invoices.js';

const ITEM_KEYS = [
  'id',
  'product_id',
  'name',
  'description',
  'quantity',
  'price',
  'discount',
  'discount_percentage',
  'tax_amount',
  'tax_rate',
  'tax_included',
  'total',
];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+02:00$/;

describe('invoices: creation of drafts', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let customerId: number;
  let foreignCustomerId: number;
  let service: number;
  let goods: number;
  let foreignProduct: number;
  let iva16: number;
  let globalIva17: number;
  let foreignTax: number;

  const post = (body: unknown, key = tenant.key, idempotencyKey = newKey()) =>
    api(ctx.app, 'POST', '/invoices', { key, idempotencyKey, body });
  const invoiceCount = async (companyId = tenant.companyId) =>
    (await ctx.db.select({ n: count() }).from(invoices).where(eq(invoices.companyId, companyId)))[0]!.n;
  const body = (overrides: Partial<DraftBody> = {}): DraftBody => ({
    customer_id: customerId,
    invoice_date: '2026-03-10',
    items: [{ product_id: service, quantity: 1, price: 100 }],
    ...overrides,
  });

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Loja Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    customerId = await createCustomer(ctx.app, tenant, 'Ana Macuácua');
    foreignCustomerId = await createCustomer(ctx.app, other, 'Cliente Alheio');
    service = await createProduct(ctx.app, ctx.db, tenant, { name: 'Consultoria', price: 500 });
    goods = await createProduct(ctx.app, ctx.db, tenant, {
      name: 'Cimento 50kg',
      inventory: 'INVENTORY',
      price: 650,
      costPrice: '480.00',
      stock: '100',
    });
    foreignProduct = await createProduct(ctx.app, ctx.db, other, { name: 'Produto Alheio' });
    iva16 = await createCompanyTax(ctx.db, tenant.companyId, '16');
    globalIva17 = await createCompanyTax(ctx.db, null, '17');
    foreignTax = await createCompanyTax(ctx.db, other.companyId, '16');
  });
  afterAll(() => ctx.close());

  it('creates a draft with exact totals; the 201 body is byte for byte a later GET', async () => {
    const res = await post({
      customer_id: customerId,
      invoice_date: '2026-03-10',
      items: [
        { product_id: goods, quantity: 3, price: 1250, discount: 10, tax_id: iva16 },
        {
          product_id: service,
          name: 'Horas de consultoria',
          description: 'Março',
          quantity: 1.5,
          price: 33.33,
        },
        { product_id: service, quantity: 1, price: 10.05, tax_id: iva16 },
        { product_id: goods, quantity: 2.5, price: 4.1, discount: 10, tax_id: globalIva17 },
        { product_id: service, quantity: 0.5, price: 0.25, tax_id: globalIva17 },
      ],
    });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(Object.keys(data)).toEqual(INVOICE_KEYS);
    expect(data.invoice_code).toMatch(/^DRAFT-[A-Z0-9]{8}$/);
    expect(data).toMatchObject({
      payment_notice_code: '',
      document_type: 'invoice',
      is_payment_notice: false,
      notice_kind: '',
      is_pos_sale: false,
      reference: '',
      payment_reference: '',
      status: 'draft',
      invoice_date: '2026-03-10',
      due_date: '2026-03-10',
      currency: 'MZN',
      exchange_rate: null,
      subtotal: '3820.43',
      discount: '376.03',
      global_discount_amount: '0.00',
      vat_base: '3394.40',
      tax: '543.20',
      grand_total: '3987.60',
      paid_amount: '0.00',
      remaining_amount: '3987.60',
      notes: '',
      customer: { id: customerId, name: 'Ana Macuácua' },
    });
    expect(data.created_at).toMatch(TIMESTAMP);
    expect(data.updated_at).toMatch(TIMESTAMP);
    for (const item of data.items) expect(Object.keys(item)).toEqual(ITEM_KEYS);
    expect(data.items.map(({ id: _id, ...item }: { id: number }) => item)).toEqual([
      {
        product_id: goods,
        name: 'Cimento 50kg',
        description: '',
        quantity: 3,
        price: '1250.00',
        discount: '375.00',
        discount_percentage: 10,
        tax_amount: '540.00',
        tax_rate: 16,
        tax_included: false,
        total: '3915.00',
      },
      {
        product_id: service,
        name: 'Horas de consultoria',
        description: 'Março',
        quantity: 1.5,
        price: '33.33',
        discount: '0.00',
        discount_percentage: 0,
        tax_amount: '0.00',
        tax_rate: null,
        tax_included: false,
        total: '50.00',
      },
      {
        product_id: service,
        name: 'Consultoria',
        description: '',
        quantity: 1,
        price: '10.05',
        discount: '0.00',
        discount_percentage: 0,
        tax_amount: '1.61',
        tax_rate: 16,
        tax_included: false,
        total: '11.66',
      },
      {
        product_id: goods,
        name: 'Cimento 50kg',
        description: '',
        quantity: 2.5,
        price: '4.10',
        discount: '1.03',
        discount_percentage: 10,
        tax_amount: '1.57',
        tax_rate: 17,
        tax_included: false,
        total: '10.79',
      },
      {
        product_id: service,
        name: 'Consultoria',
        description: '',
        quantity: 0.5,
        price: '0.25',
        discount: '0.00',
        discount_percentage: 0,
        tax_amount: '0.02',
        tax_rate: 17,
        tax_included: false,
        total: '0.15',
      },
    ]);

    const read = await api(ctx.app, 'GET', `/invoices/${data.id}`, { key: tenant.key });
    expect(read.statusCode).toBe(200);
    expect(read.body).toBe(res.body);
  });

  it('200 lines: each stored as sent and in order, odd text intact; the 201 body is byte for byte a later GET', async () => {
    const odd = [
      'aspas "duplas" e \'simples\'',
      'barra \\ e {chavetas}, vírgulas',
      'linha\nnova\ttab',
      'Açúcar 🇲🇿 ½',
      '',
      'null',
      'NULL',
    ];
    const items = Array.from({ length: 200 }, (_, i) => ({
      product_id: i % 2 === 0 ? service : goods,
      ...(i % 3 === 0 ? { name: `${odd[i % odd.length]} #${i}` } : {}),
      ...(i % 4 === 0 ? { description: odd[(i + 1) % odd.length] } : {}),
      quantity: [1, 0.0001, 12345.6789, 2.5][i % 4]!,
      price: [0, 99999.99, 33.33, 0.01, 1250][i % 5]!,
      ...(i % 6 === 0 ? { discount: [12.5, 100, 33.3333][i % 3]! } : {}),
      ...(i % 7 === 0 ? { tax_id: iva16 } : i % 7 === 1 ? { tax_id: globalIva17 } : {}),
    }));
    const res = await post(body({ items }));
    expect(res.statusCode, res.body).toBe(201);
    const { data } = res.json();
    expect(data.items).toHaveLength(200);
    const ids = data.items.map((item: { id: number }) => item.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    data.items.forEach((item: Record<string, unknown>, i: number) => {
      const line = items[i]!;
      expect(item.product_id).toBe(line.product_id);
      expect(item.name).toBe(line.name ?? (line.product_id === service ? 'Consultoria' : 'Cimento 50kg'));
      expect(item.description).toBe(line.description ?? '');
      expect(item.quantity).toBe(line.quantity);
      expect(item.price).toBe(line.price.toFixed(2));
      expect(item.discount_percentage).toBe(line.discount ?? 0);
      expect(item.tax_rate).toBe(line.tax_id === iva16 ? 16 : line.tax_id === globalIva17 ? 17 : null);
    });
    // Exact sums of the lines, to the cent.
    const cents = (text: string) => BigInt(text.replace('.', ''));
    const sum = (field: string) =>
      data.items.reduce((total: bigint, item: Record<string, string>) => total + cents(item[field]!), 0n);
    expect(cents(data.grand_total)).toBe(sum('total'));
    expect(cents(data.tax)).toBe(sum('tax_amount'));
    expect(cents(data.discount)).toBe(sum('discount'));
    const read = await api(ctx.app, 'GET', `/invoices/${data.id}`, { key: tenant.key });
    expect(read.body).toBe(res.body);
  });

  it('records invoice.created with the 201 body in the same write; a refused creation records nothing', async () => {
    const shop = await createTenant(ctx.db, { name: 'Loja com Webhook' });
    const shopCustomer = await createCustomer(ctx.app, shop, 'Cliente Avisado');
    const shopProduct = await createProduct(ctx.app, ctx.db, shop, { name: 'Serviço' });
    const [hook] = await ctx.db
      .insert(webhookEndpoints)
      .values({
        companyId: shop.companyId,
        url: 'https://hooks.example.test/invoices',
        events: ['invoice.created'],
        secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      })
      .returning({ id: webhookEndpoints.id });
    const events = () =>
      ctx.db
        .select({ id: webhookEvents.id, type: webhookEvents.type, payload: webhookEvents.payload })
        .from(webhookEvents)
        .where(eq(webhookEvents.companyId, shop.companyId));
    const draftBody = {
      customer_id: shopCustomer,
      invoice_date: '2026-03-10',
      items: [{ product_id: shopProduct, quantity: 2, price: 15.5, tax_id: globalIva17 }],
    };
    const refused = await api(ctx.app, 'POST', '/invoices', {
      key: shop.key,
      idempotencyKey: newKey(),
      body: { ...draftBody, customer_id: foreignCustomerId },
    });
    expect(refused.statusCode).toBe(404);
    expect(await events()).toEqual([]);

    const res = await api(ctx.app, 'POST', '/invoices', {
      key: shop.key,
      idempotencyKey: newKey(),
      body: draftBody,
    });
    expect(res.statusCode).toBe(201);
    const recorded = await events();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.type).toBe('invoice.created');
    expect(JSON.parse(recorded[0]!.payload).data).toEqual(res.json().data);
    const deliveries = await ctx.db
      .select({ endpointId: webhookDeliveries.endpointId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, recorded[0]!.id));
    expect(deliveries).toEqual([{ endpointId: hook!.id }]);
  });

  it('uses no fiscal number, moves no stock and makes no accounting entry', async () => {
    const before = await invoiceCount();
    const data = await createDraft(
      ctx.app,
      tenant,
      body({ items: [{ product_id: goods, quantity: 7, price: 650 }] }),
    );
    expect(data.status).toBe('draft');
    expect(await invoiceCount()).toBe(before + 1);
    const movements = await ctx.db
      .select({ n: count() })
      .from(stockMovements)
      .where(eq(stockMovements.companyId, tenant.companyId));
    const entries = await ctx.db
      .select({ n: count() })
      .from(accountingEntries)
      .where(eq(accountingEntries.companyId, tenant.companyId));
    const sequences = await ctx.db
      .select({ n: count() })
      .from(fiscalSequences)
      .where(eq(fiscalSequences.companyId, tenant.companyId));
    expect([movements[0]!.n, entries[0]!.n, sequences[0]!.n]).toEqual([0, 0, 0]);
    const [product] = await ctx.db.select().from(products).where(eq(products.id, goods));
    expect(Number(product!.stock)).toBe(100);
    const [row] = await ctx.db.select().from(invoices).where(eq(invoices.id, data.id));
    expect(row).toMatchObject({ issuedAt: null, costTotal: null, createdByApiKeyId: tenant.apiKey.id });
  });

  it('takes the optional fields: due date, reference, notes, currency, exchange rate', async () => {
    const data = await createDraft(
      ctx.app,
      tenant,
      body({
        due_date: '2026-04-09',
        reference: 'PO-2026-77',
        notes: 'Entrega em Matola',
        currency: 'USD',
        exchange_rate: 63.85,
      }),
    );
    expect(data).toMatchObject({
      due_date: '2026-04-09',
      reference: 'PO-2026-77',
      notes: 'Entrega em Matola',
      currency: 'USD',
      exchange_rate: 63.85,
      grand_total: '100.00',
    });
    const sameDay = await createDraft(ctx.app, tenant, body({ due_date: '2026-03-10' }));
    expect(sameDay.due_date).toBe('2026-03-10');
  });

  it('keeps every line exactly as sent, in order: any text, null taxes, 200 lines', async () => {
    const names = ['Caixa "grande", {2}', 'barra \\ invertida', "aspas 'simples'", 'NULL', '', 'Açúcar 🍬'];
    const items = Array.from({ length: 200 }, (_, index) => ({
      product_id: index % 2 === 0 ? service : goods,
      quantity: (10000 + (index % 7)) / 10000,
      price: (1000 + index) / 100,
      ...(index % 3 === 0 ? { tax_id: iva16 } : {}),
      ...(index < names.length ? { name: names[index] } : {}),
      ...(index === 1 ? { description: 'linha com\nduas linhas', discount: 12.5 } : {}),
    }));
    const data = await createDraft(ctx.app, tenant, body({ items }));
    expect(data.items).toHaveLength(200);
    data.items.forEach((line: Record<string, unknown>, index: number) => {
      const sent = items[index]!;
      expect(line.product_id).toBe(sent.product_id);
      expect(line.quantity).toBe(sent.quantity);
      expect(line.price).toBe(sent.price.toFixed(2));
      expect(line.tax_rate).toBe(sent.tax_id ? 16 : null);
      // An empty or missing name takes the product's name.
      const expectedName = sent.name || (sent.product_id === service ? 'Consultoria' : 'Cimento 50kg');
      expect(line.name).toBe(expectedName);
    });
    expect(data.items[1]!.description).toBe('linha com\nduas linhas');
    expect(data.items[1]!.discount_percentage).toBe(12.5);
  });

  it('invoices a global customer', async () => {
    const global = await createGlobalCustomer(ctx.db, { name: 'Consumidor Final' });
    const data = await createDraft(ctx.app, tenant, body({ customer_id: global.id }));
    expect(data.customer).toEqual({ id: global.id, name: 'Consumidor Final' });
  });

  it('replays the same key and body without creating a second draft', async () => {
    const key = newKey();
    const raw = JSON.stringify(body({ reference: 'replay' }));
    const before = await invoiceCount();
    const first = await api(ctx.app, 'POST', '/invoices', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    const second = await api(ctx.app, 'POST', '/invoices', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotency-replay']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await invoiceCount()).toBe(before + 1);
  });

  describe('validation', () => {
    const expectErrors = async (payload: unknown, expected: Record<string, string[] | number>) => {
      const before = await invoiceCount();
      const res = await post(payload);
      expect(res.statusCode, res.body).toBe(422);
      const { error } = res.json();
      expect(error.code).toBe('validation_failed');
      expect(Object.keys(error.errors).sort()).toEqual(Object.keys(expected).sort());
      for (const [path, messages] of Object.entries(expected)) {
        if (Array.isArray(messages)) expect(error.errors[path]).toEqual(messages);
      }
      expect(await invoiceCount()).toBe(before);
      return error;
    };

    it('a line without price', async () => {
      await expectErrors(body({ items: [{ product_id: service, quantity: 1 } as never] }), {
        'items.0.price': ['é obrigatório'],
      });
    });

    it('contract 2.6 "every line must carry a product_id": a line without one gets the own rule, in Portuguese, with its index', async () => {
      await expectErrors(body({ items: [{ quantity: 1, price: 10 } as never] }), {
        'items.0.product_id': [PRODUCT_REQUIRED],
      });
      await expectErrors(body({ items: [{ product_id: null, quantity: 1, price: 10 } as never] }), {
        'items.0.product_id': [PRODUCT_REQUIRED],
      });
    });

    it('an unknown line field names its line', async () => {
      const line = { product_id: service, quantity: 1, price: 10 };
      await expectErrors(body({ items: [line, line, line, { ...line, unit_cost: 5 } as never] }), {
        'items.3.unit_cost': ['campo não permitido'],
      });
    });

    it('unknown top-level fields', async () => {
      await expectErrors(
        { ...body(), status: 'paid', invoice_code: 'FT 1' },
        {
          status: ['campo não permitido'],
          invoice_code: ['campo não permitido'],
        },
      );
    });

    it('no lines, and 201 lines (200 are fine)', async () => {
      await expectErrors(body({ items: [] }), { items: ['deve ter pelo menos 1 elementos'] });
      const line = { product_id: service, quantity: 1, price: 1 };
      await expectErrors(body({ items: Array.from({ length: 201 }, () => line) }), {
        items: ['deve ter no máximo 200 elementos'],
      });
      const data = await createDraft(
        ctx.app,
        tenant,
        body({ items: Array.from({ length: 200 }, () => line) }),
      );
      expect(data.items).toHaveLength(200);
      expect(data.grand_total).toBe('200.00');
    });

    it('quantity below 0.0001, discount above 100, negative price', async () => {
      await expectErrors(body({ items: [{ product_id: service, quantity: 0.00001, price: 1 }] }), {
        'items.0.quantity': ['deve ser maior ou igual a 0.0001'],
      });
      await expectErrors(body({ items: [{ product_id: service, quantity: 0, price: 1 }] }), {
        'items.0.quantity': 1,
      });
      await expectErrors(body({ items: [{ product_id: service, quantity: 1, price: 1, discount: 101 }] }), {
        'items.0.discount': ['deve ser menor ou igual a 100'],
      });
      await expectErrors(body({ items: [{ product_id: service, quantity: 1, price: -1 }] }), {
        'items.0.price': ['deve ser maior ou igual a 0'],
      });
    });

    it('impossible dates, unknown currency, a price as text', async () => {
      await expectErrors(body({ invoice_date: '2026-02-30' }), {
        invoice_date: ['deve ser uma data válida no formato YYYY-MM-DD'],
      });
      await expectErrors(body({ due_date: '10/03/2026' }), { due_date: 1 });
      await expectErrors(body({ currency: 'EUR' as never }), { currency: ['deve ser um de: MZN, USD, ZAR'] });
      await expectErrors(body({ items: [{ product_id: service, quantity: 1, price: '12' as never }] }), {
        'items.0.price': ['deve ser do tipo number'],
      });
      await expectErrors(body({ customer_id: '5' as never }), { customer_id: ['deve ser do tipo integer'] });
      await expectErrors(body({ exchange_rate: 0 }), { exchange_rate: ['deve ser maior que 0'] });
    });

    it('a due date before the invoice date', async () => {
      await expectErrors(body({ due_date: '2026-03-09' }), { due_date: [DUE_BEFORE_INVOICE_DATE] });
    });

    it('money with more than 2 decimals and quantities with more than 4 are refused, not rounded', async () => {
      await expectErrors(body({ items: [{ product_id: service, quantity: 1, price: 10.005 }] }), {
        'items.0.price': [PRICE_PLACES],
      });
      await expectErrors(body({ items: [{ product_id: service, quantity: 1.00001, price: 10 }] }), {
        'items.0.quantity': [QUANTITY_PLACES],
      });
    });

    it('discount percentages beyond 4 decimals, exchange rates beyond 6', async () => {
      await expectErrors(
        body({ items: [{ product_id: service, quantity: 1, price: 10, discount: 12.34567 }] }),
        {
          'items.0.discount': [DISCOUNT_PLACES],
        },
      );
      await expectErrors(body({ exchange_rate: 63.1234567 }), { exchange_rate: [EXCHANGE_RATE_PLACES] });
    });

    it('amounts too large to store, per line and for the invoice', async () => {
      await expectErrors(body({ items: [{ product_id: service, quantity: 1e12, price: 1e14 }] }), {
        'items.0': [LINE_TOO_LARGE],
      });
      const big = { product_id: service, quantity: 90_000, price: 100_000_000_000 }; // 9e15 each
      await expectErrors(body({ items: [big, big] }), { items: [INVOICE_TOO_LARGE] });
    });

    it('every schema problem of the body at once', async () => {
      const error = await expectErrors(
        {
          customer_id: 'x',
          invoice_date: '2026-13-01',
          currency: 'EUR',
          items: [
            { product_id: service, quantity: 1, price: 1 },
            { product_id: service, price: '1', discount: 101, margin: 3 },
          ],
          extra: true,
        },
        {
          customer_id: 1,
          invoice_date: 1,
          currency: 1,
          'items.1.quantity': 1,
          'items.1.price': 1,
          'items.1.discount': 1,
          'items.1.margin': 1,
          extra: 1,
        },
      );
      expect(error.errors['items.1.quantity']).toEqual(['é obrigatório']);
    });

    it('every own-rule problem of the body at once', async () => {
      await expectErrors(
        {
          customer_id: customerId,
          invoice_date: '2026-03-10',
          due_date: '2026-03-01',
          items: [
            { quantity: 1, price: 1 } as never,
            { product_id: foreignProduct, quantity: 1, price: 1 },
            { product_id: 999999, quantity: 1, price: 1, tax_id: foreignTax },
            { product_id: service, quantity: 1.23456, price: 1.234, tax_id: 999999 },
            { product_id: goods, quantity: 1, price: 1, tax_id: iva16 },
          ],
        },
        {
          due_date: [DUE_BEFORE_INVOICE_DATE],
          'items.0.product_id': [PRODUCT_REQUIRED],
          'items.1.product_id': [UNKNOWN_PRODUCT],
          'items.2.product_id': [UNKNOWN_PRODUCT],
          'items.2.tax_id': [UNKNOWN_TAX],
          'items.3.quantity': [QUANTITY_PLACES],
          'items.3.price': [PRICE_PLACES],
          'items.3.tax_id': [UNKNOWN_TAX],
        },
      );
    });

    it('a 422 stores nothing: the same idempotency key works once the body is fixed', async () => {
      const key = newKey();
      const bad = await post(body({ items: [{ quantity: 1, price: 1 } as never] }), tenant.key, key);
      expect(bad.statusCode).toBe(422);
      const good = await post(body(), tenant.key, key);
      expect(good.statusCode).toBe(201);
    });

    it('refuses an unreadable body', async () => {
      const res = await api(ctx.app, 'POST', '/invoices', {
        key: tenant.key,
        idempotencyKey: newKey(),
        rawBody: '{"customer_id":',
      });
      expect(res.statusCode).toBe(422);
      expect(Object.keys(res.json().error.errors)).toEqual(['body']);
    });
  });

  describe('tenant isolation', () => {
    const withoutRequestId = (res: { json(): { error: Record<string, unknown> } }) => {
      const { request_id: _id, ...rest } = res.json().error;
      return rest;
    };

    it("another company's customer is a 404 exactly like a missing one, and creates nothing", async () => {
      const before = [await invoiceCount(), await invoiceCount(other.companyId)];
      const key = newKey();
      const foreign = await post(body({ customer_id: foreignCustomerId }), tenant.key, key);
      const missing = await post(body({ customer_id: 999999 }));
      const zero = await post(body({ customer_id: 0 }));
      const huge = await post(body({ customer_id: 99999999999 }));
      for (const res of [foreign, missing, zero, huge]) {
        expect(res.statusCode).toBe(404);
        expect(withoutRequestId(res)).toEqual(withoutRequestId(foreign));
      }
      expect(withoutRequestId(foreign)).toMatchObject({ code: 'resource_not_found' });
      expect([await invoiceCount(), await invoiceCount(other.companyId)]).toEqual(before);
      // A 404 is a completed answer: replayed as stored, with this request's id.
      const replay = await post(body({ customer_id: foreignCustomerId }), tenant.key, key);
      expect(replay.statusCode).toBe(404);
      expect(replay.headers['idempotency-replay']).toBe('true');
      expect(withoutRequestId(replay)).toEqual(withoutRequestId(foreign));
      expect(replay.json().error.request_id).toBe(replay.headers['x-request-id']);
    });

    it("another company's product or tax is refused exactly like a nonexistent one", async () => {
      const errorsOf = async (line: Record<string, unknown>) =>
        (await post(body({ items: [line as never] }))).json().error.errors;
      const foreignProductErrors = await errorsOf({ product_id: foreignProduct, quantity: 1, price: 1 });
      const missingProductErrors = await errorsOf({ product_id: 999999, quantity: 1, price: 1 });
      expect(foreignProductErrors).toEqual({ 'items.0.product_id': [UNKNOWN_PRODUCT] });
      expect(missingProductErrors).toEqual(foreignProductErrors);
      // An unknown product is not a missing one: no advice to create the service as a product.
      expect(UNKNOWN_PRODUCT).not.toContain('NON_INVENTORY');
      for (const id of [0, -1, 99999999999]) {
        expect(await errorsOf({ product_id: id, quantity: 1, price: 1 })).toEqual(foreignProductErrors);
      }
      const foreignTaxErrors = await errorsOf({
        product_id: service,
        quantity: 1,
        price: 1,
        tax_id: foreignTax,
      });
      const missingTaxErrors = await errorsOf({ product_id: service, quantity: 1, price: 1, tax_id: 999999 });
      expect(foreignTaxErrors).toEqual({ 'items.0.tax_id': [UNKNOWN_TAX] });
      expect(missingTaxErrors).toEqual(foreignTaxErrors);
      // The whole envelope is the same too (only request_id differs).
      const a = await post(body({ items: [{ product_id: foreignProduct, quantity: 1, price: 1 }] }));
      const b = await post(body({ items: [{ product_id: 999999, quantity: 1, price: 1 }] }));
      expect(withoutRequestId(a)).toEqual(withoutRequestId(b));
    });
  });

  describe('who may create', () => {
    it('a key without invoices:write gets 403 insufficient_scope naming the scope', async () => {
      const reader = await createTenant(ctx.db, { scopes: ['invoices:read'] });
      const res = await post(body(), reader.key);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('insufficient_scope');
      expect(res.json().error.hint).toContain('invoices:write');
      const writer = await createTenant(ctx.db, { scopes: ['invoices:write'] });
      const read = await api(ctx.app, 'GET', '/invoices', { key: writer.key });
      expect(read.statusCode).toBe(403);
      expect(read.json().error.hint).toContain('invoices:read');
    });

    it('a test key gets 403 test_mode_read_only, whatever its scopes', async () => {
      const test = await createTenant(ctx.db, { mode: 'test' });
      const res = await post(body(), test.key);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('test_mode_read_only');
    });

    it('PUT and DELETE on invoices do not exist: the generic 404', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const res = await api(ctx.app, method, '/invoices/1', {
          key: tenant.key,
          idempotencyKey: newKey(),
          body: {},
        });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ message: expect.any(String), error: 'Not Found', statusCode: 404 });
      }
    });
  });

  describe('createDraftInvoice (the application side)', () => {
    it('works directly on the database and nests in a transaction (all or nothing)', async () => {
      const as = (db: Database) => companyContext(db, tenant.companyId, ctx.config.timeZone);
      const { id } = await createDraftInvoice(as(ctx.db), body({ reference: 'direct' }));
      const read = await api(ctx.app, 'GET', `/invoices/${id}`, { key: tenant.key });
      expect(read.json().data).toMatchObject({ reference: 'direct', status: 'draft', grand_total: '100.00' });
      const [row] = await ctx.db.select().from(invoices).where(eq(invoices.id, id));
      expect(row!.createdByApiKeyId).toBeNull();

      const before = await invoiceCount();
      await expect(
        ctx.db.transaction(async (tx) => {
          await createDraftInvoice(as(tx), body());
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(await invoiceCount()).toBe(before);
    });

    it('checks the body itself when called directly', async () => {
      const bad = { ...body(), items: [{ product_id: service, quantity: 1 }] } as never;
      const context = companyContext(ctx.db, tenant.companyId, ctx.config.timeZone);
      const error = await createDraftInvoice(context, bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).errors).toEqual({ 'items.0.price': ['é obrigatório'] });
    });

    it('retries another draft code when the first one is taken in the company', async () => {
      const existing = await createDraft(ctx.app, tenant, body());
      const codes = [existing.invoice_code, existing.invoice_code, 'DRAFT-RETRY001'];
      let calls = 0;
      const id = await ctx.db.transaction((tx) =>
        insertWithDraftCode(
          tx,
          {
            companyId: tenant.companyId,
            customerId,
            status: 'draft',
            invoiceDate: '2026-03-10',
            dueDate: '2026-03-10',
          },
          () => codes[calls++]!,
        ),
      );
      expect(calls).toBe(3);
      const [row] = await ctx.db.select().from(invoices).where(eq(invoices.id, id));
      expect(row!.invoiceCode).toBe('DRAFT-RETRY001');
      // Another company may hold the same code.
      const elsewhere = await insertWithDraftCode(
        ctx.db,
        {
          companyId: other.companyId,
          customerId: foreignCustomerId,
          status: 'draft',
          invoiceDate: '2026-03-10',
          dueDate: '2026-03-10',
        },
        () => 'DRAFT-RETRY001',
      );
      expect(elsewhere).not.toBe(id);
      const lines = await ctx.db
        .select({ n: count() })
        .from(invoiceItems)
        .where(and(eq(invoiceItems.invoiceId, id)));
      expect(lines[0]!.n).toBe(0);
    });
  });
});
