import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, payments, products } from '../../src/db/schema.js';
import { createDemo, DEMO_COMPANY, type DemoResult } from '../../src/operations/demo.js';
import { executeOperation } from '../../src/operations/index.js';
import { api, asOperator, operationSetup, startTestApp, type TestContext } from '../helpers/context.js';

const MONEY = /^-?[0-9]+\.[0-9]{2}$/;

describe('demo operation', () => {
  let ctx: TestContext;
  let demo: DemoResult;

  beforeAll(async () => {
    ctx = await startTestApp();
    demo = await createDemo(asOperator(ctx.db));
  });
  afterAll(() => ctx.close());

  it('creates the company with its partner API enabled and two keys', async () => {
    expect(demo.id).toBe(demo.company.id);
    expect(demo.company).toMatchObject({ ...DEMO_COMPANY, partner_api_enabled: true });
    expect(demo.company.nuit).toMatch(/^[0-9]{9}$/);
    expect(demo.live_key.key).toMatch(/^svc_sk_live_/);
    expect(demo.live_key.scopes).toHaveLength(7);
    expect(demo.test_key.key).toMatch(/^svc_sk_test_/);
    expect(demo.test_key.scopes).toEqual([
      'customers:read',
      'products:read',
      'invoices:read',
      'payments:read',
    ]);

    const live = await api(ctx.app, 'GET', '/ping', { key: demo.live_key.key });
    expect(live.statusCode).toBe(200);
    expect(live.json().data).toMatchObject({
      tenant_id: demo.id,
      tenant_name: DEMO_COMPANY.name,
      mode: 'live',
    });
    const test = await api(ctx.app, 'GET', '/ping', { key: demo.test_key.key });
    expect(test.json().data.mode).toBe('test');
  });

  it('has customers with NUIT, Mozambican phones and addresses, and one global Consumidor Final', async () => {
    const res = await api(ctx.app, 'GET', '/customers?per_page=100', { key: demo.live_key.key });
    expect(res.statusCode).toBe(200);
    const list = res.json().data as {
      name: string;
      type: string;
      nuit: string;
      phone: string;
      address: string;
    }[];
    expect(list).toHaveLength(7);
    expect(new Set(list.map((c) => c.type))).toEqual(new Set(['individual', 'company']));
    const own = list.filter((c) => c.name !== 'Consumidor Final');
    for (const customer of own) {
      expect(customer.nuit).toMatch(/^[0-9]{9}$/);
      expect(customer.phone).toMatch(/^\+258 /);
    }
    const cities = own.map((c) => c.address).join(' ');
    for (const city of ['Maputo', 'Matola', 'Beira']) expect(cities).toContain(city);
    expect(list.filter((c) => c.name === 'Consumidor Final')).toHaveLength(1);
  });

  it('has products of every type, with stock for inventory goods', async () => {
    const res = await api(ctx.app, 'GET', '/products?per_page=100', { key: demo.test_key.key });
    expect(res.statusCode).toBe(200);
    const list = res.json().data as {
      type: string;
      tracks_inventory: boolean;
      stock: number | null;
      price: string;
      tax_rate: number | null;
    }[];
    expect(new Set(list.map((p) => p.type))).toEqual(new Set(['GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT']));
    const goods = list.filter((p) => p.type === 'GOODS' && p.tracks_inventory);
    expect(goods.length).toBeGreaterThan(0);
    for (const product of goods) expect(product.stock).toBeGreaterThan(0);
    expect(list.find((p) => p.type === 'SERVICES')?.tracks_inventory).toBe(false);
    for (const product of list) expect(product.price).toMatch(MONEY);
    expect(list.some((p) => p.tax_rate === 16)).toBe(true);
  });

  it('has invoices in every status, with consistent totals', async () => {
    const res = await api(ctx.app, 'GET', '/invoices?per_page=100', { key: demo.test_key.key });
    expect(res.statusCode).toBe(200);
    const list = res.json().data as {
      status: string;
      invoice_code: string;
      grand_total: string;
      paid_amount: string;
      remaining_amount: string;
    }[];
    expect(new Set(list.map((i) => i.status))).toEqual(
      new Set(['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled']),
    );
    for (const invoice of list) {
      for (const amount of [invoice.grand_total, invoice.paid_amount, invoice.remaining_amount]) {
        expect(amount).toMatch(MONEY);
      }
      if (invoice.status === 'draft') expect(invoice.invoice_code).toMatch(/^DRAFT-[A-Z0-9]{8}$/);
      else expect(invoice.invoice_code).not.toMatch(/^DRAFT-/);
      if (invoice.status === 'paid') expect(invoice.remaining_amount).toBe('0.00');
      if (invoice.status === 'partially_paid') {
        expect(Number(invoice.paid_amount)).toBeGreaterThan(0);
        expect(Number(invoice.remaining_amount)).toBeGreaterThan(0);
      }
    }
    expect(demo.invoices.map((i) => i.status).sort()).toEqual(list.map((i) => i.status).sort());
  });

  it('shows receipts through the API, never the salary or the supplier payment', async () => {
    const res = await api(ctx.app, 'GET', '/payments?per_page=100', { key: demo.test_key.key });
    expect(res.statusCode).toBe(200);
    const list = res.json().data as { amount: string; invoice: { id: number } | null }[];
    expect(list).toHaveLength(demo.counts.receipts);
    for (const payment of list) {
      expect(payment.amount).toMatch(MONEY);
      expect(payment.invoice).not.toBeNull();
    }
    const kinds = await ctx.db
      .select({ kind: payments.kind })
      .from(payments)
      .where(eq(payments.companyId, demo.id));
    expect(kinds.map((k) => k.kind).sort()).toEqual(
      ['receipt', 'receipt', 'receipt', 'receipt', 'salary', 'supplier_payment'].sort(),
    );
  });

  it('moved stock when issuing and leaves a few products pending for the point of sale', async () => {
    const [rice] = await ctx.db
      .select({ stock: products.stock })
      .from(products)
      .where(and(eq(products.companyId, demo.id), eq(products.name, 'Arroz agulha 5 kg')));
    // 120 opening; 20 sold to the school (issued); the restaurant's 10 are only a draft.
    expect(Number(rice?.stock)).toBe(100);
    const pending = await executeOperation(
      operationSetup(ctx.database.handle),
      'pos.pending',
      { company: String(demo.id) },
      'test',
    );
    expect(pending.products).toHaveLength(2);
  });

  it('a test key stays read-only', async () => {
    const res = await api(ctx.app, 'POST', '/customers', {
      key: demo.test_key.key,
      idempotencyKey: 'demo-test-key-write',
      body: { name: 'Não deve existir' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('test_mode_read_only');
  });

  it('a second demo makes a second company and reuses the global Consumidor Final', async () => {
    const again = await createDemo(asOperator(ctx.db));
    expect(again.id).not.toBe(demo.id);
    expect(again.global_customer_id).toBe(demo.global_customer_id);
    const globals = await ctx.db
      .select({ id: customers.id })
      .from(customers)
      .where(and(isNull(customers.companyId), eq(customers.name, 'Consumidor Final')));
    expect(globals).toHaveLength(1);
  });
});
