// Pages of GET /payments over real HTTP, every sort both ways: each page reached directly (an offset skipped on
// the list's partial indexes, drizzle/0007) and by a walk (a seek past the previous page's end)
// holds exactly the rows of the contract's definition, counted and ordered here by plain SQL that
// still joins the invoice and checks its company: "receipts linked to an invoice of the company".
import { eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, sql } from '../../src/db/client.js';
import { payments } from '../../src/db/schema.js';
import { issueInvoice, recordMovement, recordReceipt } from '../../src/operations/invoices.js';
import type { PaymentSchema } from '../../src/payments/schemas.js';
import { type ListeningApp, startListeningApp } from '../helpers/client-server.js';
import { asOperator, createTenant, type Tenant } from '../helpers/context.js';
import { createCustomer, createDraft, createProduct } from '../helpers/invoices.js';

type Payment = Static<typeof PaymentSchema>;

const SORTS = {
  payment_date: 'p.payment_date',
  amount: 'p.amount',
  created_at: 'p.created_at',
  updated_at: 'p.updated_at',
} as const;
type Sort = keyof typeof SORTS;
const PER_PAGE = 4;

describe('payments: every page of every order is exact', () => {
  let ctx: ListeningApp;
  let tenant: Tenant;
  let other: Tenant;
  const invoiceIds: number[] = [];

  const list = async (query: string, key = tenant.key) => {
    const res = await fetch(`${ctx.baseUrl}/payments?${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    return JSON.parse(body) as { data: Payment[]; pagination: Record<string, number> };
  };

  /** The list by the contract's definition, ordered as the API must order it. */
  async function expected(sort: Sort, order: 'asc' | 'desc', where = sql`true`): Promise<number[]> {
    const direction = sql.raw(order);
    const rows = await queryRows<{ id: number }>(
      ctx.db,
      sql`select p.id from payments p join invoices i on i.id = p.invoice_id
          where p.company_id = ${tenant.companyId} and p.kind = 'receipt'
            and i.company_id = ${tenant.companyId} and ${where}
          order by ${sql.raw(SORTS[sort])} ${direction}, p.id ${direction}`,
    );
    return rows.map((row) => row.id);
  }

  /** Every page reached directly, last to first (no page end to seek from), then walked 1..last. */
  async function expectPagesExact(query: string, ids: number[]) {
    const pages = Math.max(1, Math.ceil(ids.length / PER_PAGE));
    const direct: number[][] = [];
    for (let page = pages + 1; page >= 1; page--) {
      const body = await list(`${query ? `${query}&` : ''}per_page=${PER_PAGE}&page=${page}`);
      expect(body.pagination, `${query} page ${page}`).toEqual({
        total: ids.length,
        count: ids.slice((page - 1) * PER_PAGE, page * PER_PAGE).length,
        per_page: PER_PAGE,
        current_page: page,
        last_page: pages,
      });
      direct[page - 1] = body.data.map((payment) => payment.id);
    }
    expect(direct.flat(), `${query} pages reached directly`).toEqual(ids);
    const walked: number[] = [];
    for (let page = 1; page <= pages; page++) {
      walked.push(
        ...(await list(`${query ? `${query}&` : ''}per_page=${PER_PAGE}&page=${page}`)).data.map((p) => p.id),
      );
    }
    expect(walked, `${query} pages walked`).toEqual(ids);
  }

  async function expectEveryOrderExact() {
    for (const sort of Object.keys(SORTS) as Sort[]) {
      for (const order of ['asc', 'desc'] as const) {
        await expectPagesExact(`sort=${sort}&order=${order}`, await expected(sort, order));
      }
    }
    // No sort asked for: the default order (decisions.md "Lists": an unknown parameter is a 422).
    await expectPagesExact('', await expected('payment_date', 'desc'));
  }

  beforeAll(async () => {
    ctx = await startListeningApp();
    tenant = await createTenant(ctx.db, { name: 'Loja das Páginas, Lda' });
    other = await createTenant(ctx.db, { name: 'Vizinha, Lda' });
    const issued = async (who: Tenant) => {
      const customer = await createCustomer(ctx.app, who, 'Cliente');
      const product = await createProduct(ctx.app, ctx.db, who, { name: 'Serviço' });
      const draft = await createDraft(ctx.app, who, {
        customer_id: customer,
        invoice_date: '2026-01-10',
        items: [{ product_id: product, quantity: 1, price: 100000 }],
      });
      return (await issueInvoice(asOperator(ctx.db), draft.id)).id;
    };
    for (let i = 0; i < 3; i++) invoiceIds.push(await issued(tenant));
    const foreignInvoice = await issued(other);
    // 21 receipts over three invoices: repeated dates and amounts (ties broken by id).
    for (let i = 0; i < 21; i++) {
      await recordReceipt(asOperator(ctx.db), {
        invoiceId: invoiceIds[i % 3]!,
        amount: ['100.00', '250.50', '99.99', '1000.00'][i % 4]!,
        date: `2026-02-${String(1 + ((i * 7) % 10)).padStart(2, '0')}`,
      });
      if (i % 5 === 0) {
        await recordMovement(asOperator(ctx.db), {
          companyId: tenant.companyId,
          kind: 'salary',
          amount: '10',
        });
        await recordReceipt(asOperator(ctx.db), {
          invoiceId: foreignInvoice,
          amount: '1.00',
          date: '2026-02-03',
        });
      }
    }
    // Rows written by the application outside these operations: a receipt with no date and no
    // amount (the columns allow it; it sorts last ascending, first descending), a receipt with no
    // invoice and a supplier payment linked to an invoice (neither is listed).
    await ctx.db.insert(payments).values([
      { companyId: tenant.companyId, kind: 'receipt', invoiceId: invoiceIds[0]!, paymentCode: 'RC N/1' },
      { companyId: tenant.companyId, kind: 'receipt', paymentCode: 'RC N/2', amount: '5.00' },
      {
        companyId: tenant.companyId,
        kind: 'supplier_payment',
        invoiceId: invoiceIds[1]!,
        paymentCode: 'MV N/3',
        paymentDate: '2026-02-04',
        amount: '7.00',
      },
    ]);
    // Timestamps with ties: the receipts were written within a few milliseconds of each other.
    const rows = await ctx.db
      .select({ id: payments.id })
      .from(payments)
      .where(eq(payments.companyId, tenant.companyId));
    for (const [index, row] of rows.entries()) {
      const at = `2026-02-0${1 + (index % 3)}T10:00:00Z`;
      await ctx.db
        .update(payments)
        .set({ createdAt: new Date(at), updatedAt: new Date(`2026-03-0${1 + (index % 4)}T10:00:00Z`) })
        .where(eq(payments.id, row.id));
    }
  });
  afterAll(() => ctx.close());

  it('has the receipts the test means: 22 listed, the others hidden', async () => {
    expect(await expected('payment_date', 'desc')).toHaveLength(22);
    expect((await list('per_page=100')).pagination.total).toBe(22);
    expect((await list('per_page=100', other.key)).pagination.total).toBe(5);
  });

  it('every sort, ascending and descending, page by page and page by number', async () => {
    await expectEveryOrderExact();
  });

  it('filters narrow the same exact pages: a date range under each sort, an invoice', async () => {
    const range = sql`p.payment_date between '2026-02-03' and '2026-02-08'`;
    for (const sort of Object.keys(SORTS) as Sort[]) {
      for (const order of ['asc', 'desc'] as const) {
        await expectPagesExact(
          `date_from=2026-02-03&date_to=2026-02-08&sort=${sort}&order=${order}`,
          await expected(sort, order, range),
        );
      }
    }
    await expectPagesExact(
      `invoice_id=${invoiceIds[1]}&sort=amount&order=desc`,
      await expected('amount', 'desc', sql`p.invoice_id = ${invoiceIds[1]}`),
    );
  });

  it('after writes (a new receipt, a receipt moved to another of its invoices) the pages are exact again', async () => {
    const before = (await list('per_page=1')).pagination.total!;
    await recordReceipt(asOperator(ctx.db), {
      invoiceId: invoiceIds[2]!,
      amount: '42.00',
      date: '2026-02-05',
    });
    const [moved] = await queryRows<{ id: number }>(
      ctx.db,
      sql`select id from payments where company_id = ${tenant.companyId} and invoice_id = ${invoiceIds[0]}
          order by id limit 1`,
    );
    await ctx.db
      .update(payments)
      .set({ invoiceId: invoiceIds[1]!, updatedAt: sql`now()` })
      .where(eq(payments.id, moved!.id));
    expect((await list('per_page=1')).pagination.total).toBe(before + 1);
    await expectEveryOrderExact();
  });
});
