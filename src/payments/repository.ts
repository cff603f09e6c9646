// Reads of payments. Only receipts linked to an invoice of the company exist for the API:
// salaries, supplier payments and any other treasury movement are invisible, in lists and by
// id alike (a 404 exactly like a missing id). The treasury account never leaves.
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import { invoices, payments, receiptCounts } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { atLeast, atMost, declareList, equalTo } from '../lists/declaration.js';
import { type Page, type PageRequest, readList } from '../lists/page.js';
import { formatMoney } from '../money.js';
import { PaymentListQuery, type PaymentSchema } from './schemas.js';

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

/** The receipts list as data (src/lists/declaration.ts): one filter per query parameter. */
export const receiptList = declareList({
  resource: 'payments',
  query: PaymentListQuery,
  table: payments,
  id: payments.id,
  visible: visibleReceipts,
  filters: {
    invoice_id: equalTo('invoiceId'),
    date_from: atLeast('paymentDate'),
    date_to: atMost('paymentDate'),
  },
  sorts: {
    payment_date: payments.paymentDate,
    amount: payments.amount,
    created_at: payments.createdAt,
    updated_at: payments.updatedAt,
  },
  defaultOrder: { sort: 'payment_date', order: 'desc' },
  // A receipt without a date is counted under -infinity, which no date filter may match.
  counters: [
    {
      table: receiptCounts,
      visible: (companyId) => eq(receiptCounts.companyId, companyId),
      undated: 'paymentDate',
    },
  ],
  // Pages are read along the order's index (filter-first reads were measured on the other lists).
  shortListsByFilter: false,
  // The page's ids first, from the payments alone; the invoice join runs for those rows only, not
  // for every row an offset skips.
  pageIdsFirst: true,
  select: ({ db }) => selectReceipts(db).$dynamic(),
  resources: ({ timeZone }, rows: PaymentRow[]) => rows.map((row) => toPaymentResource(row, timeZone)),
});

export function listPayments(
  context: CompanyContext,
  query: Static<typeof PaymentListQuery>,
  page: PageRequest,
): Promise<Page<PaymentResource>> {
  return readList(context, receiptList, query, page);
}
