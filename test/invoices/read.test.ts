import { eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceItems, invoices } from '../../src/db/schema.js';
import { DATE_HINT, ID_HINT, ISO_INSTANT_HINT } from '../../src/http/list-query.js';
import type { InvoiceSummarySchema } from '../../src/invoices/schemas.js';
import type { Pagination } from '../../src/lists/page.js';
import { cancelInvoice, issueInvoice, recordReceipt } from '../../src/operations/invoices.js';
import {
  api,
  asOperator,
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
  INVOICE_KEYS,
  SUMMARY_KEYS,
} from '../helpers/invoices.js';

type Summary = Static<typeof InvoiceSummarySchema>;

describe('invoices: reads', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let ana: number;
  let bento: number;
  const ids: Record<string, number> = {};
  let foreignId: number;

  const get = (path: string, key = tenant.key) => api(ctx.app, 'GET', path, { key });
  const list = async (query = ''): Promise<{ data: Summary[]; pagination: Pagination }> => {
    const res = await get(`/invoices${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Loja Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    ana = await createCustomer(ctx.app, tenant, 'Ana Macuácua');
    bento = await createCustomer(ctx.app, tenant, 'Bento Sitoe');
    const rice = await createProduct(ctx.app, ctx.db, tenant, {
      name: 'Arroz 25kg',
      inventory: 'INVENTORY',
      price: 1500,
      costPrice: '1100.00',
      stock: '50',
    });
    const iva = await createCompanyTax(ctx.db, tenant.companyId, '16');
    const draft = (customer: number, date: string, price: number, extra: Record<string, unknown> = {}) =>
      createDraft(ctx.app, tenant, {
        customer_id: customer,
        invoice_date: date,
        items: [
          { product_id: rice, quantity: 1, price },
          { product_id: rice, name: 'Segunda linha', quantity: 1, price: 0, tax_id: iva },
        ],
        ...extra,
      });

    ids.draft = (await draft(ana, '2026-01-15', 100)).id;
    ids.unpaid = (await draft(bento, '2026-02-01', 250)).id;
    ids.partial = (await draft(ana, '2026-02-01', 250)).id;
    ids.paid = (await draft(bento, '2026-02-28', 80)).id;
    ids.cancelled = (await draft(ana, '2026-03-01', 40)).id;
    ids.lateDraft = (await draft(ana, '2026-03-01', 100, { due_date: '2026-04-30' })).id;
    for (const id of [ids.unpaid, ids.partial, ids.paid, ids.cancelled])
      await issueInvoice(asOperator(ctx.db), id!);
    await recordReceipt(asOperator(ctx.db), {
      invoiceId: ids.partial!,
      amount: '100.00',
      date: '2026-02-10',
    });
    await recordReceipt(asOperator(ctx.db), { invoiceId: ids.paid!, amount: '80', date: '2026-03-01' });
    await cancelInvoice(asOperator(ctx.db), ids.cancelled!);

    const otherCustomer = await createCustomer(ctx.app, other, 'Cliente Alheio');
    const otherProduct = await createProduct(ctx.app, ctx.db, other, { name: 'Alheio' });
    foreignId = (
      await createDraft(ctx.app, other, {
        customer_id: otherCustomer,
        invoice_date: '2026-02-01',
        items: [{ product_id: otherProduct, quantity: 1, price: 5 }],
      })
    ).id;
  });
  afterAll(() => ctx.close());

  it('lists the company’s invoices without items, newest invoice date first, id as tie-breaker', async () => {
    const body = await list();
    expect(body.pagination).toEqual({ total: 6, count: 6, per_page: 25, current_page: 1, last_page: 1 });
    for (const invoice of body.data) expect(Object.keys(invoice)).toEqual(SUMMARY_KEYS);
    expect(body.data.map((i) => i.id)).toEqual([
      ids.lateDraft,
      ids.cancelled,
      ids.paid,
      ids.partial,
      ids.unpaid,
      ids.draft,
    ]);
    expect(body.data.map((i) => i.status)).toEqual([
      'draft',
      'cancelled',
      'paid',
      'partially_paid',
      'unpaid',
      'draft',
    ]);
    expect(body.data.some((i) => i.id === foreignId)).toBe(false);
  });

  it('reads one invoice with its items in line order, issued codes and payment state', async () => {
    const res = await get(`/invoices/${ids.partial}`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(Object.keys(data)).toEqual(INVOICE_KEYS);
    expect(data).toMatchObject({
      invoice_code: expect.stringMatching(/^FT 2026\/\d{6}$/),
      status: 'partially_paid',
      grand_total: '250.00',
      paid_amount: '100.00',
      remaining_amount: '150.00',
      vat_base: '0.00',
      customer: { id: ana, name: 'Ana Macuácua' },
    });
    expect(data.items.map((i: { name: string; tax_rate: number | null }) => [i.name, i.tax_rate])).toEqual([
      ['Arroz 25kg', null],
      ['Segunda linha', 16],
    ]);
  });

  it('never serializes costs, internal ids or accounting data', async () => {
    await ctx.db.update(invoices).set({ costTotal: '987654.32' }).where(eq(invoices.id, ids.unpaid!));
    await ctx.db
      .update(invoiceItems)
      .set({ unitCost: '123456.78' })
      .where(eq(invoiceItems.invoiceId, ids.unpaid!));
    const [row] = await ctx.db.select().from(invoices).where(eq(invoices.id, ids.unpaid!));
    expect(row!.createdByApiKeyId).toBe(tenant.apiKey.id);
    for (const path of [`/invoices/${ids.unpaid}`, '/invoices', '/invoices?sort=grand_total']) {
      const text = (await get(path)).body;
      for (const hidden of [
        '987654.32',
        '123456.78',
        'cost',
        'created_by',
        'company_id',
        'tax_id',
        'api_key',
      ]) {
        expect(text).not.toContain(hidden);
      }
    }
  });

  describe('filters', () => {
    it('status, with every value; a bad one is 422 listing the valid ones', async () => {
      const expected: Record<string, number[]> = {
        draft: [ids.lateDraft!, ids.draft!],
        unpaid: [ids.unpaid!],
        partially_paid: [ids.partial!],
        paid: [ids.paid!],
        cancelled: [ids.cancelled!],
      };
      for (const [status, want] of Object.entries(expected)) {
        expect((await list(`?status=${status}`)).data.map((i) => i.id)).toEqual(want);
      }
      const bad = await get('/invoices?status=open');
      expect(bad.statusCode).toBe(422);
      expect(bad.json().error.code).toBe('invalid_query_parameter');
      expect(bad.json().error.hint).toBe(
        'Valores válidos para "status": draft, unpaid, partially_paid, paid, cancelled.',
      );
    });

    it('customer_id, numeric only', async () => {
      const bentos = await list(`?customer_id=${bento}`);
      expect(bentos.data.map((i) => i.id)).toEqual([ids.paid, ids.unpaid]);
      expect(bentos.pagination.total).toBe(2);
      expect((await list('?customer_id=999999')).data).toEqual([]);
      for (const value of ['abc', '1.5', '12abc', '0', '99999999999']) {
        const bad = await get(`/invoices?customer_id=${value}`);
        expect(bad.statusCode, value).toBe(422);
        expect(bad.json().error.code).toBe('invalid_query_parameter');
        expect(bad.json().error.hint).toBe(ID_HINT);
      }
    });

    it('date_from and date_to, both inclusive, on the invoice date', async () => {
      const feb = await list('?date_from=2026-02-01&date_to=2026-02-28');
      expect(feb.data.map((i) => i.id)).toEqual([ids.paid, ids.partial, ids.unpaid]);
      expect((await list('?date_from=2026-03-01')).data.map((i) => i.id)).toEqual([
        ids.lateDraft,
        ids.cancelled,
      ]);
      expect((await list('?date_to=2026-01-15')).data.map((i) => i.id)).toEqual([ids.draft]);
      for (const query of ['date_from=2026-02-30', 'date_to=01/02/2026', 'date_from=2026-02-01T00:00:00Z']) {
        const bad = await get(`/invoices?${query}`);
        expect(bad.statusCode, query).toBe(422);
        expect(bad.json().error.hint).toBe(DATE_HINT);
      }
    });

    it('updated_since, inclusive, a date or a timestamp', async () => {
      const all = await list();
      const latest = all.data
        .map((i) => i.updated_at)
        .sort()
        .at(-1)!;
      const since = await list(`?updated_since=${encodeURIComponent(latest)}`);
      expect(since.data.length).toBeGreaterThanOrEqual(1);
      for (const invoice of since.data) expect(invoice.updated_at >= latest).toBe(true);
      expect((await list('?updated_since=2000-01-01')).pagination.total).toBe(6);
      expect((await list('?updated_since=2999-01-01T00:00:00Z')).data).toEqual([]);
      const bad = await get('/invoices?updated_since=yesterday');
      expect(bad.statusCode).toBe(422);
      expect(bad.json().error.hint).toBe(ISO_INSTANT_HINT);
    });

    it('filters combine', async () => {
      const res = await list(`?status=draft&customer_id=${ana}&date_from=2026-02-01`);
      expect(res.data.map((i) => i.id)).toEqual([ids.lateDraft]);
    });
  });

  describe('sorting and pagination', () => {
    const compare = (field: keyof Summary, direction: 'asc' | 'desc') => (a: Summary, b: Summary) => {
      const x = field === 'grand_total' ? Number(a[field]) : String(a[field]);
      const y = field === 'grand_total' ? Number(b[field]) : String(b[field]);
      const order = x < y ? -1 : x > y ? 1 : a.id - b.id;
      return direction === 'asc' ? order : -order;
    };

    it('every sort, ascending by default and descending on request, ties broken by id', async () => {
      const all = (await list()).data;
      for (const sort of ['invoice_date', 'due_date', 'grand_total', 'created_at', 'updated_at'] as const) {
        const asc = await list(`?sort=${sort}`);
        expect(
          asc.data.map((i) => i.id),
          sort,
        ).toEqual([...all].sort(compare(sort, 'asc')).map((i) => i.id));
        const desc = await list(`?sort=${sort}&order=desc`);
        expect(
          desc.data.map((i) => i.id),
          sort,
        ).toEqual([...all].sort(compare(sort, 'desc')).map((i) => i.id));
      }
      // order alone applies to the default sort
      const ascDefault = await list('?order=asc');
      expect(ascDefault.data.map((i) => i.id)).toEqual(
        [...all].sort(compare('invoice_date', 'asc')).map((i) => i.id),
      );
    });

    it('a bad sort or order is 422 with the valid values', async () => {
      const sort = await get('/invoices?sort=total');
      expect(sort.statusCode).toBe(422);
      expect(sort.json().error.hint).toBe(
        'Valores válidos para "sort": invoice_date, due_date, grand_total, created_at, updated_at.',
      );
      const order = await get('/invoices?order=up');
      expect(order.statusCode).toBe(422);
      expect(order.json().error.hint).toBe('Valores válidos para "order": asc, desc.');
    });

    it('pages never overlap or skip; past the last page is empty; per_page is capped at 100', async () => {
      const all = (await list()).data.map((i) => i.id);
      const pages: number[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await list(`?per_page=2&page=${page}`);
        expect(res.pagination).toEqual({ total: 6, count: 2, per_page: 2, current_page: page, last_page: 3 });
        pages.push(...res.data.map((i) => i.id));
      }
      expect(pages).toEqual(all);
      const past = await list('?per_page=2&page=4');
      expect(past.data).toEqual([]);
      expect(past.pagination).toEqual({ total: 6, count: 0, per_page: 2, current_page: 4, last_page: 3 });
      expect((await list('?per_page=500')).pagination.per_page).toBe(100);
      for (const query of ['page=0', 'per_page=0', 'page=abc', 'per_page=-1']) {
        const bad = await get(`/invoices?${query}`);
        expect(bad.statusCode, query).toBe(422);
        expect(bad.json().error.code).toBe('invalid_query_parameter');
      }
    });

    it('decisions.md "Unknown query parameters give 422 invalid_query_parameter naming the parameter": company_id and foo are not filters', async () => {
      const res = await get('/invoices?company_id=1&foo=bar');
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('invalid_query_parameter');
      expect(res.json().error.message).toContain('"company_id", "foo"');
      expect(res.json().error.hint).toBe(
        'Parâmetros deste pedido: page, per_page, sort, order, status, customer_id, date_from, date_to, updated_since.',
      );
    });
  });

  describe('isolation', () => {
    it("another company's id, a missing id and a malformed id answer the same 404", async () => {
      const answers = await Promise.all(
        [foreignId, 999999, 'abc', '0', '-1', '1.5', '99999999999', `${ids.draft}x`].map((id) =>
          get(`/invoices/${id}`),
        ),
      );
      const first = answers[0]!;
      for (const res of answers) {
        expect(res.statusCode).toBe(404);
        const { request_id, ...rest } = res.json().error;
        expect(request_id).toBe(res.headers['x-request-id']);
        const { request_id: _r, ...expected } = first.json().error;
        expect(rest).toEqual(expected);
        expect(res.body.replace(request_id, '')).toBe(first.body.replace(first.json().error.request_id, ''));
      }
      expect(first.json().error.code).toBe('resource_not_found');
      // And the other company does see it.
      expect((await get(`/invoices/${foreignId}`, other.key)).statusCode).toBe(200);
      expect((await list()).data.map((i) => i.id)).not.toContain(foreignId);
      const theirs = (await get('/invoices', other.key)).json();
      expect(theirs.data.map((i: Summary) => i.id)).toEqual([foreignId]);
    });

    it('a key without invoices:read is refused', async () => {
      const payer = await createTenant(ctx.db, { scopes: ['payments:read'] });
      for (const path of ['/invoices', `/invoices/${ids.draft}`]) {
        const res = await get(path, payer.key);
        expect(res.statusCode).toBe(403);
        expect(res.json().error.code).toBe('insufficient_scope');
        expect(res.json().error.hint).toContain('invoices:read');
      }
    });

    it('a test key reads', async () => {
      const test = await createTenant(ctx.db, { mode: 'test', scopes: ['invoices:read'] });
      expect((await get('/invoices', test.key)).statusCode).toBe(200);
    });
  });
});
