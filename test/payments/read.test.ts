import { eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, sql } from '../../src/db/client.js';
import { invoices, payments } from '../../src/db/schema.js';
import { DATE_HINT, ID_HINT } from '../../src/http/list-query.js';
import { issueInvoice, recordMovement, recordReceipt } from '../../src/operations/invoices.js';
import type { PaymentSchema } from '../../src/payments/schemas.js';
import {
  api,
  asOperator,
  createTenant,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { createCustomer, createDraft, createProduct, newKey } from '../helpers/invoices.js';

const PAYMENT_KEYS = [
  'id',
  'payment_code',
  'payment_date',
  'amount',
  'payment_method',
  'payment_method_type',
  'reference',
  'notes',
  'invoice',
  'created_at',
  'updated_at',
];

type Payment = Static<typeof PaymentSchema>;

/** The constraint a foreign-key violation (SQLSTATE 23503, possibly wrapped by drizzle) names. */
function foreignKeyViolated(error: unknown): string | null {
  for (let current: unknown = error; current; current = (current as { cause?: unknown }).cause) {
    const candidate = current as { code?: unknown; constraint?: unknown; message?: unknown };
    if (candidate.code === '23503') {
      const named = String(candidate.constraint ?? candidate.message ?? '');
      return /payments_\w+_fk/.exec(named)?.[0] ?? named;
    }
  }
  return null;
}

describe('payments: reads', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let invoiceA: { id: number; code: string };
  let invoiceB: { id: number; code: string };
  const receipts: Record<string, number> = {};
  const hidden: Record<string, number> = {};
  let foreignReceipt: number;

  const get = (path: string, key = tenant.key) => api(ctx.app, 'GET', path, { key });
  const list = async (query = ''): Promise<{ data: Payment[]; pagination: Record<string, number> }> => {
    const res = await get(`/payments${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Loja Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    const issuedInvoice = async (who: Tenant, price: number) => {
      const customer = await createCustomer(ctx.app, who, `Cliente ${newKey()}`);
      const product = await createProduct(ctx.app, ctx.db, who, { name: 'Serviço' });
      const draft = await createDraft(ctx.app, who, {
        customer_id: customer,
        invoice_date: '2026-02-01',
        items: [{ product_id: product, quantity: 1, price }],
      });
      const issued = await issueInvoice(asOperator(ctx.db), draft.id);
      return { id: issued.id, code: issued.invoice_code };
    };
    invoiceA = await issuedInvoice(tenant, 1000);
    invoiceB = await issuedInvoice(tenant, 500);
    const receipt = async (invoiceId: number, amount: string, date: string, method?: string) =>
      (await recordReceipt(asOperator(ctx.db), { invoiceId, amount, date, ...(method ? { method } : {}) }))
        .id;
    receipts.a1 = await receipt(invoiceA.id, '300.00', '2026-02-05', 'mpesa');
    receipts.a2 = await receipt(invoiceA.id, '200.00', '2026-02-20', 'bank_transfer');
    receipts.b1 = await receipt(invoiceB.id, '500.00', '2026-02-20');
    receipts.a3 = await receipt(invoiceA.id, '450.50', '2026-03-01');
    hidden.salary = (
      await recordMovement(asOperator(ctx.db), {
        companyId: tenant.companyId,
        kind: 'salary',
        amount: '300',
        date: '2026-02-20',
      })
    ).id;
    hidden.supplier = (
      await recordMovement(asOperator(ctx.db), {
        companyId: tenant.companyId,
        kind: 'supplier_payment',
        amount: '999.99',
        date: '2026-02-21',
      })
    ).id;
    const foreignInvoice = await issuedInvoice(other, 100);
    foreignReceipt = await receipt(foreignInvoice.id, '100', '2026-02-20');
    // A row no receipt list may show even if it says 'receipt': no invoice.
    const [orphan] = await ctx.db
      .insert(payments)
      .values({ companyId: tenant.companyId, kind: 'receipt', paymentCode: 'RC X/1', amount: '1.00' })
      .returning();
    // A treasury movement that is not a receipt stays hidden even when linked to an invoice.
    const [linkedSupplierPayment] = await ctx.db
      .insert(payments)
      .values({
        companyId: tenant.companyId,
        kind: 'supplier_payment',
        invoiceId: invoiceA.id,
        paymentCode: 'MV X/3',
        paymentDate: '2026-02-20',
        amount: '3.00',
      })
      .returning();
    hidden.linked = linkedSupplierPayment!.id;
    hidden.orphan = orphan!.id;
  });
  afterAll(() => ctx.close());

  it('lists only receipts of the company, newest payment date first, id as tie-breaker', async () => {
    const body = await list();
    expect(body.pagination).toEqual({ total: 4, count: 4, per_page: 25, current_page: 1, last_page: 1 });
    expect(body.data.map((p) => p.id)).toEqual([receipts.a3, receipts.b1, receipts.a2, receipts.a1]);
    for (const payment of body.data) expect(Object.keys(payment)).toEqual(PAYMENT_KEYS);
  });

  it('reads one receipt with its invoice reference', async () => {
    const res = await get(`/payments/${receipts.a1}`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(Object.keys(data)).toEqual(PAYMENT_KEYS);
    expect(data).toEqual({
      id: receipts.a1,
      payment_code: 'RC 2026/000001',
      payment_date: '2026-02-05',
      amount: '300.00',
      payment_method: 'mpesa',
      payment_method_type: 'mobile_money',
      reference: '',
      notes: null,
      invoice: { id: invoiceA.id, invoice_code: invoiceA.code, payment_notice_code: '' },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+02:00$/),
      updated_at: expect.stringMatching(/\+02:00$/),
    });
    expect(res.body).not.toContain('account');
    expect(res.body).not.toContain('kind');
    expect(res.body).not.toContain('company_id');
  });

  it('the database refuses every write that would link a payment to an invoice of another company', async () => {
    // The API never writes payments and `payments record` takes the company from the invoice;
    // these are writes of the application outside both, straight to the tables.
    const foreignInvoiceId = (await get(`/payments/${foreignReceipt}`, other.key)).json().data.invoice.id;
    const listBefore = await list('?per_page=100');
    const theirsBefore = (await get('/payments?per_page=100', other.key)).json();
    const refusals = {
      "a new receipt of the company on the other company's invoice": ctx.db.insert(payments).values({
        companyId: tenant.companyId,
        kind: 'receipt',
        invoiceId: foreignInvoiceId,
        paymentCode: 'RC X/2',
        amount: '2.00',
      }),
      "a receipt moved to the other company's invoice": ctx.db
        .update(payments)
        .set({ invoiceId: foreignInvoiceId })
        .where(eq(payments.id, receipts.a1!)),
      'a receipt moved to the other company, its invoice kept': ctx.db
        .update(payments)
        .set({ companyId: other.companyId, paymentCode: 'RC X/4' })
        .where(eq(payments.id, receipts.a1!)),
      'an invoice with receipts moved to the other company': ctx.db
        .update(invoices)
        .set({ companyId: other.companyId })
        .where(eq(invoices.id, invoiceB.id)),
    };
    for (const [what, write] of Object.entries(refusals)) {
      const error = await write.then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(foreignKeyViolated(error), what).toBe('payments_invoice_company_fk');
    }
    // Nothing of it stayed: the same lists, totals and single reads on both sides.
    const [inserted] = await queryRows<{ n: number }>(
      ctx.db,
      sql`select count(*)::int as n from payments where payment_code = 'RC X/2'`,
    );
    expect(inserted?.n).toBe(0);
    expect(await list('?per_page=100')).toEqual(listBefore);
    expect((await get('/payments?per_page=100', other.key)).json()).toEqual(theirsBefore);
    expect((await get(`/payments/${receipts.a1}`)).json().data.invoice.id).toBe(invoiceA.id);
    expect((await get(`/payments/${receipts.a1}`, other.key)).statusCode).toBe(404);
  });

  it('salaries, supplier payments and receipts of other companies are a 404 exactly like a missing id', async () => {
    const ids = [hidden.salary, hidden.supplier, hidden.orphan, foreignReceipt, 999999, 'abc', '0'];
    const answers = await Promise.all(ids.map((id) => get(`/payments/${id}`)));
    const strip = (body: string, requestId: string) => body.replace(requestId, '');
    const reference = answers[0]!;
    for (const res of answers) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('resource_not_found');
      expect(strip(res.body, res.json().error.request_id)).toBe(
        strip(reference.body, reference.json().error.request_id),
      );
    }
    // The other company sees its own receipt.
    expect((await get(`/payments/${foreignReceipt}`, other.key)).statusCode).toBe(200);
    const theirs = (await get('/payments', other.key)).json();
    expect(theirs.data.map((p: Payment) => p.id)).toEqual([foreignReceipt]);
    // No list, filter or page shows them.
    const all = await list('?per_page=100&date_from=2000-01-01');
    for (const id of Object.values(hidden)) expect(all.data.map((p) => p.id)).not.toContain(id);
    expect(all.data.map((p) => p.id)).not.toContain(foreignReceipt);
  });

  describe('filters', () => {
    it('invoice_id, numeric only', async () => {
      expect((await list(`?invoice_id=${invoiceA.id}`)).data.map((p) => p.id)).toEqual([
        receipts.a3,
        receipts.a2,
        receipts.a1,
      ]);
      expect((await list(`?invoice_id=${invoiceB.id}`)).data.map((p) => p.id)).toEqual([receipts.b1]);
      const foreignInvoiceId = (await get(`/payments/${foreignReceipt}`, other.key)).json().data.invoice.id;
      expect((await list(`?invoice_id=${foreignInvoiceId}`)).data).toEqual([]);
      for (const value of ['abc', '1.5', '-3', '99999999999']) {
        const bad = await get(`/payments?invoice_id=${value}`);
        expect(bad.statusCode, value).toBe(422);
        expect(bad.json().error.code).toBe('invalid_query_parameter');
        expect(bad.json().error.hint).toBe(ID_HINT);
      }
    });

    it('date_from and date_to, inclusive, on the payment date', async () => {
      expect((await list('?date_from=2026-02-20&date_to=2026-02-20')).data.map((p) => p.id)).toEqual([
        receipts.b1,
        receipts.a2,
      ]);
      expect((await list('?date_to=2026-02-05')).data.map((p) => p.id)).toEqual([receipts.a1]);
      expect((await list('?date_from=2026-03-01')).data.map((p) => p.id)).toEqual([receipts.a3]);
      for (const query of ['date_from=2026-02-30', 'date_to=20-02-2026', 'date_from=2026-02-01T10:00:00Z']) {
        const bad = await get(`/payments?${query}`);
        expect(bad.statusCode, query).toBe(422);
        expect(bad.json().error.hint).toBe(DATE_HINT);
      }
    });
  });

  describe('sorting and pagination', () => {
    it('every sort ascending by default, descending on request, ties broken by id', async () => {
      const all = (await list()).data;
      const compare = (field: keyof Payment, direction: 'asc' | 'desc') => (a: Payment, b: Payment) => {
        const x = field === 'amount' ? Number(a[field]) : String(a[field]);
        const y = field === 'amount' ? Number(b[field]) : String(b[field]);
        const order = x < y ? -1 : x > y ? 1 : a.id - b.id;
        return direction === 'asc' ? order : -order;
      };
      for (const sort of ['payment_date', 'amount', 'created_at', 'updated_at'] as const) {
        for (const order of ['asc', 'desc'] as const) {
          const query = order === 'asc' ? `?sort=${sort}` : `?sort=${sort}&order=desc`;
          expect(
            (await list(query)).data.map((p) => p.id),
            query,
          ).toEqual([...all].sort(compare(sort, order)).map((p) => p.id));
        }
      }
      expect((await list('?sort=amount')).data.map((p) => p.amount)).toEqual([
        '200.00',
        '300.00',
        '450.50',
        '500.00',
      ]);
    });

    it('a bad sort or order is 422 with the valid values', async () => {
      const sort = await get('/payments?sort=invoice_date');
      expect(sort.statusCode).toBe(422);
      expect(sort.json().error.hint).toBe(
        'Valores válidos para "sort": payment_date, amount, created_at, updated_at.',
      );
      const order = await get('/payments?order=random');
      expect(order.json().error.hint).toBe('Valores válidos para "order": asc, desc.');
    });

    it('pages, past the last page, per_page capped at 100', async () => {
      const all = (await list()).data.map((p) => p.id);
      const first = await list('?per_page=3');
      const second = await list('?per_page=3&page=2');
      expect(first.pagination).toEqual({ total: 4, count: 3, per_page: 3, current_page: 1, last_page: 2 });
      expect(second.pagination).toEqual({ total: 4, count: 1, per_page: 3, current_page: 2, last_page: 2 });
      expect([...first.data, ...second.data].map((p) => p.id)).toEqual(all);
      expect((await list('?page=9')).data).toEqual([]);
      expect((await list('?per_page=1000')).pagination.per_page).toBe(100);
      expect((await get('/payments?page=0')).statusCode).toBe(422);
    });
  });

  describe('access', () => {
    it('needs payments:read; a test key reads', async () => {
      const invoicesOnly = await createTenant(ctx.db, { scopes: ['invoices:read'] });
      for (const path of ['/payments', `/payments/${receipts.a1}`]) {
        const res = await get(path, invoicesOnly.key);
        expect(res.statusCode).toBe(403);
        expect(res.json().error.code).toBe('insufficient_scope');
        expect(res.json().error.hint).toContain('payments:read');
      }
      const test = await createTenant(ctx.db, { mode: 'test', scopes: ['payments:read'] });
      expect((await get('/payments', test.key)).statusCode).toBe(200);
    });

    it('payments are read-only: POST, PUT and DELETE are the generic 404', async () => {
      for (const [method, path] of [
        ['POST', '/payments'],
        ['PUT', `/payments/${receipts.a1}`],
        ['DELETE', `/payments/${receipts.a1}`],
      ] as const) {
        const res = await api(ctx.app, method, path, {
          key: tenant.key,
          idempotencyKey: newKey(),
          body: { invoice_id: invoiceA.id, amount: 10 },
        });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ message: expect.any(String), error: 'Not Found', statusCode: 404 });
      }
      expect((await list()).pagination.total).toBe(4);
    });
  });
});
