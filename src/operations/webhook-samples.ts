// The data of a sample event (`webhooks test ID --type T`): the company's newest resource that such
// an event could carry (a paid invoice for invoice.paid, a receipt for payment.created, ...), read
// exactly as the API's single GET shows it, so the partner's handler meets real data. A company
// that has no such resource gets a refusal saying what is missing, never an invented one.
import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { CompanyContext } from '../context.js';
import { findCustomer } from '../customers/repository.js';
import { customers, type InvoiceStatus, invoices, payments, products } from '../db/schema.js';
import type { TextKey } from '../i18n/catalog.js';
import { findInvoice } from '../invoices/repository.js';
import { findPayment } from '../payments/repository.js';
import { findProduct } from '../products/repository.js';
import type { EventType } from '../webhooks/event-types.js';
import { OperationError } from './errors.js';

/** The invoice statuses an event of each invoice type shows (the newest such invoice is sent). */
const INVOICE_STATUSES_OF: Record<string, { statuses: InvoiceStatus[]; what: TextKey }> = {
  'invoice.created': { statuses: ['draft'], what: 'sample.draft_invoice' },
  'invoice.issued': { statuses: ['unpaid', 'partially_paid', 'paid'], what: 'sample.issued_invoice' },
  'invoice.partially_paid': { statuses: ['partially_paid'], what: 'sample.partially_paid_invoice' },
  'invoice.paid': { statuses: ['paid'], what: 'sample.paid_invoice' },
  'invoice.cancelled': { statuses: ['cancelled'], what: 'sample.cancelled_invoice' },
};

async function newestInvoice(context: CompanyContext, statuses: InvoiceStatus[]): Promise<object | null> {
  const [row] = await context.db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.companyId, context.companyId), inArray(invoices.status, statuses)))
    .orderBy(desc(invoices.id))
    .limit(1);
  return row ? findInvoice(context, row.id) : null;
}

async function newestReceipt(context: CompanyContext): Promise<object | null> {
  const [row] = await context.db
    .select({ id: payments.id })
    .from(payments)
    .where(
      and(
        eq(payments.companyId, context.companyId),
        sql`${payments.kind} = 'receipt'`,
        isNotNull(payments.invoiceId),
      ),
    )
    .orderBy(desc(payments.id))
    .limit(1);
  return row ? findPayment(context, row.id) : null;
}

async function newestCustomer(context: CompanyContext): Promise<object | null> {
  // The company's own customers: global ones are never the subject of an event.
  const [row] = await context.db
    .select({ id: customers.id })
    .from(customers)
    .where(eq(customers.companyId, context.companyId))
    .orderBy(desc(customers.id))
    .limit(1);
  return row ? findCustomer(context, row.id) : null;
}

async function newestProduct(context: CompanyContext): Promise<object | null> {
  const [row] = await context.db
    .select({ id: products.id })
    .from(products)
    .where(eq(products.companyId, context.companyId))
    .orderBy(desc(products.id))
    .limit(1);
  return row ? findProduct(context, row.id) : null;
}

/** The `data` of a sample `type` event of the context's company; refused when it has none. */
export async function sampleData(context: CompanyContext, type: EventType): Promise<object> {
  const invoice = INVOICE_STATUSES_OF[type];
  const [data, what]: [object | null, TextKey] = invoice
    ? [await newestInvoice(context, invoice.statuses), invoice.what]
    : type === 'payment.created'
      ? [await newestReceipt(context), 'sample.receipt']
      : type.startsWith('customer.')
        ? [await newestCustomer(context), 'sample.customer']
        : [await newestProduct(context), 'sample.product'];
  if (!data) {
    throw new OperationError({
      key: 'refused.no_sample',
      params: { id: context.companyId, what: { key: what }, type },
    });
  }
  return data;
}
