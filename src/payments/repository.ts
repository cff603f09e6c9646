// Reads of payments. Only receipts linked to an invoice of the company exist for the API:
// salaries, supplier payments and any other treasury movement are invisible, in lists and by
// id alike (a 404 exactly like a missing id). The treasury account never leaves.
import { and, count, eq, gt, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import { counterSum } from '../db/list-counts.js';
import { orderByOf, type Page, type PageRequest, paginate } from '../db/lists.js';
import { invoices, payments, receiptCounts } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { formatMoney } from '../money.js';
import type { PaymentListQuery, PaymentSchema } from './schemas.js';

export type PaymentResource = Static<typeof PaymentSchema>;

const paymentColumns = {
  id: payments.id,
  paymentCode: payments.paymentCode,
  paymentDate: payments.paymentDate,
  amount: payments.amount,
  paymentMethod: payments.paymentMethod,
  paymentMethodType: payments.paymentMethodType,
  reference: payments.reference,
  notes: payments.notes,
  invoiceId: invoices.id,
  invoiceCode: invoices.invoiceCode,
  paymentNoticeCode: invoices.paymentNoticeCode,
  createdAt: payments.createdAt,
  updatedAt: payments.updatedAt,
};

/**
 * What the company may see: its receipts, each linked to one of its own invoices. A payment's
 * invoice is always of the payment's company (payments_invoice_company_fk, drizzle/0006), so
 * "linked to an invoice" is enough, and is answered by the payment row alone.
 * The kind is a constant in the SQL text, not a bound parameter, and the condition is the
 * predicate of the list's partial indexes (payments_receipts_*_idx, drizzle/0007): the planner
 * proves it from the text alone, also for a prepared statement's generic plan.
 */
function visibleReceipts(companyId: number): SQL {
  return and(
    eq(payments.companyId, companyId),
    sql`${payments.kind} = 'receipt' and ${payments.invoiceId} is not null`,
  )!;
}

function selectReceipts(db: Database) {
  return db.select(paymentColumns).from(payments).innerJoin(invoices, eq(invoices.id, payments.invoiceId));
}

type PaymentRow = Awaited<ReturnType<typeof selectReceipts>>[number];

function toPaymentResource(row: PaymentRow, timeZone: string): PaymentResource {
  return {
    id: row.id,
    payment_code: row.paymentCode,
    payment_date: row.paymentDate,
    amount: formatMoney(row.amount),
    payment_method: row.paymentMethod,
    payment_method_type: row.paymentMethodType,
    reference: row.reference,
    notes: row.notes,
    invoice: { id: row.invoiceId, invoice_code: row.invoiceCode, payment_notice_code: row.paymentNoticeCode },
    created_at: formatTimestamp(row.createdAt, timeZone),
    updated_at: formatTimestamp(row.updatedAt, timeZone),
  };
}

export async function findPayment(
  { db, companyId, timeZone }: CompanyContext,
  id: number,
): Promise<PaymentResource | null> {
  const [row] = await selectReceipts(db).where(and(eq(payments.id, id), visibleReceipts(companyId)));
  return row ? toPaymentResource(row, timeZone) : null;
}

export async function listPayments(
  context: CompanyContext,
  query: Static<typeof PaymentListQuery>,
  page: PageRequest,
): Promise<Page<PaymentResource>> {
  const { db, companyId, timeZone } = context;
  const conditions: SQL[] = [visibleReceipts(companyId)];
  if (query.invoice_id !== undefined) conditions.push(eq(payments.invoiceId, query.invoice_id));
  if (query.date_from) conditions.push(gte(payments.paymentDate, query.date_from));
  if (query.date_to) conditions.push(lte(payments.paymentDate, query.date_to));
  const where = and(...conditions);
  const order = orderByOf(
    query,
    {
      payment_date: payments.paymentDate,
      amount: payments.amount,
      created_at: payments.createdAt,
      updated_at: payments.updatedAt,
    },
    payments.id,
    { sort: 'payment_date', order: 'desc' },
  );

  const { invoice_id, date_from, date_to } = query;
  return paginate(context, page, {
    list: { resource: 'payments', filters: { invoice_id, date_from, date_to } },
    order,
    rows: async (limit, offset, after) => {
      // The page's ids first, from the payments alone; the invoice join runs for those rows only,
      // not for every row an offset skips.
      const pageIds = db
        .select({ id: payments.id })
        .from(payments)
        .where(after ? and(where, after) : where)
        .orderBy(...order.orderBy)
        .limit(limit)
        .offset(offset);
      const rows = await selectReceipts(db)
        .where(inArray(payments.id, pageIds))
        .orderBy(...order.orderBy);
      return rows.map((row) => toPaymentResource(row, timeZone));
    },
    count:
      invoice_id !== undefined
        ? db.select({ total: count() }).from(payments).where(where).getSQL()
        : countFromCounters(companyId, { date_from, date_to }),
  });
}

/**
 * `select` of the number of the company's receipts paid between two dates, from the counters
 * (drizzle/0010), where a receipt without a date is under `-infinity`: never within a date filter.
 */
function countFromCounters(companyId: number, dates: { date_from?: string; date_to?: string }): SQL {
  const dated = dates.date_from !== undefined || dates.date_to !== undefined;
  return counterSum(
    receiptCounts.count,
    and(
      eq(receiptCounts.companyId, companyId),
      dated ? gt(receiptCounts.paymentDate, '-infinity') : undefined,
      dates.date_from ? gte(receiptCounts.paymentDate, dates.date_from) : undefined,
      dates.date_to ? lte(receiptCounts.paymentDate, dates.date_to) : undefined,
    )!,
  );
}
