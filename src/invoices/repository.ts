// Reads of invoices, as resources. Every function sees only the company's own invoices.
// The resource is built here from explicitly chosen columns: costs, accounting data and internal
// ids (cost_total, unit_cost, created_by_api_key_id, company_id, tax_id of lines) never leave.
import { and, asc, eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import { customers, invoiceCounts, invoiceItems, invoices, invoiceUpdateCounts } from '../db/schema.js';
import { decimalNumber, formatTimestamp } from '../format.js';
import { atLeast, atMost, changedSince, declareList, equalTo } from '../lists/declaration.js';
import { type Page, type PageRequest, readList } from '../lists/page.js';
import { formatMoney } from '../money.js';
import {
  type InvoiceItemSchema,
  InvoiceListQuery,
  type InvoiceSchema,
  type InvoiceSummarySchema,
} from './schemas.js';

export type InvoiceResource = Static<typeof InvoiceSchema>;
export type InvoiceSummaryResource = Static<typeof InvoiceSummarySchema>;
export type InvoiceItemResource = Static<typeof InvoiceItemSchema>;

/** The invoice's own columns the resource shows: what the insert of a draft returns. */
export const invoiceReturning = {
  id: invoices.id,
  invoiceCode: invoices.invoiceCode,
  paymentNoticeCode: invoices.paymentNoticeCode,
  documentType: invoices.documentType,
  isPaymentNotice: invoices.isPaymentNotice,
  noticeKind: invoices.noticeKind,
  isPosSale: invoices.isPosSale,
  reference: invoices.reference,
  paymentReference: invoices.paymentReference,
  status: invoices.status,
  invoiceDate: invoices.invoiceDate,
  dueDate: invoices.dueDate,
  currency: invoices.currency,
  exchangeRate: invoices.exchangeRate,
  subtotal: invoices.subtotal,
  discount: invoices.discount,
  globalDiscountAmount: invoices.globalDiscountAmount,
  vatBase: invoices.vatBase,
  tax: invoices.tax,
  grandTotal: invoices.grandTotal,
  paidAmount: invoices.paidAmount,
  remainingAmount: invoices.remainingAmount,
  notes: invoices.notes,
  createdAt: invoices.createdAt,
  updatedAt: invoices.updatedAt,
};

const invoiceColumns = { ...invoiceReturning, customerId: customers.id, customerName: customers.name };

/** The columns of a line the resource shows: what the insert of a draft returns. */
export const itemReturning = {
  id: invoiceItems.id,
  productId: invoiceItems.productId,
  name: invoiceItems.name,
  description: invoiceItems.description,
  quantity: invoiceItems.quantity,
  price: invoiceItems.price,
  discount: invoiceItems.discount,
  discountPercentage: invoiceItems.discountPercentage,
  taxAmount: invoiceItems.taxAmount,
  taxRate: invoiceItems.taxRate,
  taxIncluded: invoiceItems.taxIncluded,
  total: invoiceItems.total,
};

function selectInvoices(db: Database) {
  return db.select(invoiceColumns).from(invoices).leftJoin(customers, eq(customers.id, invoices.customerId));
}

function selectItems(db: Database) {
  return db.select(itemReturning).from(invoiceItems);
}

type InvoiceRow = Awaited<ReturnType<typeof selectInvoices>>[number];
export type InvoiceRowInserted = Omit<InvoiceRow, 'customerId' | 'customerName'>;
export type ItemRow = Awaited<ReturnType<typeof selectItems>>[number];

function toItemResource(row: ItemRow): InvoiceItemResource {
  return {
    id: row.id,
    product_id: row.productId,
    name: row.name,
    description: row.description,
    quantity: decimalNumber(row.quantity),
    price: formatMoney(row.price),
    discount: formatMoney(row.discount),
    discount_percentage: decimalNumber(row.discountPercentage),
    tax_amount: formatMoney(row.taxAmount),
    tax_rate: decimalNumber(row.taxRate),
    tax_included: row.taxIncluded,
    total: formatMoney(row.total),
  };
}

function toSummaryResource(row: InvoiceRow, timeZone: string): InvoiceSummaryResource {
  return {
    id: row.id,
    invoice_code: row.invoiceCode,
    payment_notice_code: row.paymentNoticeCode,
    document_type: row.documentType,
    is_payment_notice: row.isPaymentNotice,
    notice_kind: row.noticeKind,
    is_pos_sale: row.isPosSale,
    reference: row.reference,
    payment_reference: row.paymentReference,
    status: row.status,
    invoice_date: row.invoiceDate,
    due_date: row.dueDate,
    currency: row.currency,
    exchange_rate: decimalNumber(row.exchangeRate),
    subtotal: formatMoney(row.subtotal),
    discount: formatMoney(row.discount),
    global_discount_amount: formatMoney(row.globalDiscountAmount),
    vat_base: formatMoney(row.vatBase),
    tax: formatMoney(row.tax),
    grand_total: formatMoney(row.grandTotal),
    paid_amount: formatMoney(row.paidAmount),
    remaining_amount: formatMoney(row.remainingAmount),
    notes: row.notes,
    customer: row.customerId === null ? null : { id: row.customerId, name: row.customerName ?? '' },
    created_at: formatTimestamp(row.createdAt, timeZone),
    updated_at: formatTimestamp(row.updatedAt, timeZone),
  };
}

function withItems(summary: InvoiceSummaryResource, items: InvoiceItemResource[]): InvoiceResource {
  const { created_at, updated_at, ...rest } = summary;
  return { ...rest, items, created_at, updated_at };
}

/**
 * The resource of an invoice just inserted, from the row and lines its inserts returned (lines
 * in line order) and its customer: the same as `findInvoice` reads afterwards.
 */
export function invoiceResourceOf(
  row: InvoiceRowInserted,
  customer: { id: number; name: string },
  items: readonly ItemRow[],
  timeZone: string,
): InvoiceResource {
  const summary = toSummaryResource(
    { ...row, customerId: customer.id, customerName: customer.name },
    timeZone,
  );
  return withItems(summary, items.map(toItemResource));
}

/** One invoice of the company with its items, as GET /invoices/{id} and POST /invoices show it. */
export async function findInvoice(
  { db, companyId, timeZone }: CompanyContext,
  id: number,
): Promise<InvoiceResource | null> {
  const [row] = await selectInvoices(db).where(and(eq(invoices.id, id), eq(invoices.companyId, companyId)));
  if (!row) return null;
  const items = await selectItems(db)
    .where(and(eq(invoiceItems.invoiceId, id), eq(invoiceItems.companyId, companyId)))
    .orderBy(asc(invoiceItems.position), asc(invoiceItems.id));
  return withItems(toSummaryResource(row, timeZone), items.map(toItemResource));
}

/**
 * The invoices list as data (src/lists/declaration.ts). Its totals come from
 * the counters by status and invoice date, or by status and day of change for `updated_since`; a
 * customer's invoices, or dates and `updated_since` together, are counted in the table (the first
 * on an index of its own).
 */
export const invoiceList = declareList({
  resource: 'invoices',
  query: InvoiceListQuery,
  table: invoices,
  id: invoices.id,
  visible: (companyId) => eq(invoices.companyId, companyId),
  filters: {
    status: equalTo('status'),
    customer_id: equalTo('customerId'),
    date_from: atLeast('invoiceDate'),
    date_to: atMost('invoiceDate'),
    updated_since: changedSince(),
  },
  sorts: {
    invoice_date: invoices.invoiceDate,
    due_date: invoices.dueDate,
    grand_total: invoices.grandTotal,
    created_at: invoices.createdAt,
    updated_at: invoices.updatedAt,
  },
  defaultOrder: { sort: 'invoice_date', order: 'desc' },
  counters: [
    { table: invoiceCounts, visible: (companyId) => eq(invoiceCounts.companyId, companyId) },
    { table: invoiceUpdateCounts, visible: (companyId) => eq(invoiceUpdateCounts.companyId, companyId) },
  ],
  shortListsByFilter: true,
  // The page's ids first, from the index alone; the customer join runs for those rows only, not
  // for every row an offset skips.
  pageIdsFirst: true,
  select: ({ db }) => selectInvoices(db).$dynamic(),
  resources: ({ timeZone }, rows: InvoiceRow[]) => rows.map((row) => toSummaryResource(row, timeZone)),
});

export function listInvoices(
  context: CompanyContext,
  query: Static<typeof InvoiceListQuery>,
  page: PageRequest,
): Promise<Page<InvoiceSummaryResource>> {
  return readList(context, invoiceList, query, page);
}
