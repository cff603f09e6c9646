// What an operator looks up before acting, without the API: a company's invoices (the drafts to
// issue, the invoices to record a receipt on) and the customers it may invoice.
import { and, asc, desc, eq } from 'drizzle-orm';
import { visibleTo } from '../customers/repository.js';
import type { Database } from '../db/client.js';
import { customers, type InvoiceStatus, invoices } from '../db/schema.js';
import { formatMoney } from '../money.js';

export interface InvoiceLookupRow {
  id: number;
  invoice_code: string;
  status: InvoiceStatus;
  invoice_date: string;
  customer_id: number | null;
  customer: string | null;
  grand_total: string | null;
  remaining_amount: string | null;
}

/** The company's newest `limit` invoices (of one status, if given), newest first. */
export async function lookUpInvoices(
  db: Database,
  query: { companyId: number; status?: InvoiceStatus; limit: number },
): Promise<InvoiceLookupRow[]> {
  const conditions = [eq(invoices.companyId, query.companyId)];
  if (query.status) conditions.push(eq(invoices.status, query.status));
  const rows = await db
    .select({
      id: invoices.id,
      invoiceCode: invoices.invoiceCode,
      status: invoices.status,
      invoiceDate: invoices.invoiceDate,
      customerId: invoices.customerId,
      customer: customers.name,
      grandTotal: invoices.grandTotal,
      remainingAmount: invoices.remainingAmount,
    })
    .from(invoices)
    .leftJoin(customers, eq(customers.id, invoices.customerId))
    .where(and(...conditions))
    .orderBy(desc(invoices.id))
    .limit(query.limit);
  return rows.map((row) => ({
    id: row.id,
    invoice_code: row.invoiceCode,
    status: row.status,
    invoice_date: row.invoiceDate,
    customer_id: row.customerId,
    customer: row.customer,
    grand_total: formatMoney(row.grandTotal),
    remaining_amount: formatMoney(row.remainingAmount),
  }));
}

export interface CustomerLookupRow {
  id: number;
  name: string;
  type: string;
  nuit: string | null;
  email: string | null;
  phone: string | null;
  /** A global customer: visible to every company, editable by none. */
  global: boolean;
}

/** The customers a company may invoice: its own and the global ones, by id, at most `limit`. */
export async function lookUpCustomers(
  db: Database,
  query: { companyId: number; limit: number },
): Promise<CustomerLookupRow[]> {
  const rows = await db
    .select()
    .from(customers)
    .where(visibleTo(query.companyId))
    .orderBy(asc(customers.id))
    .limit(query.limit);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    type: row.type,
    nuit: row.nuit,
    email: row.email,
    phone: row.phone,
    global: row.companyId === null,
  }));
}
