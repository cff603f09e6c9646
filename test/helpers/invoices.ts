// Fixtures for invoice and payment tests, built through the paths users take: customers and
// drafts and products through the API, taxes through the operator's operation. Internal product
// fields (cost price, stock) are what the application sets, so they are written directly.
import { eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { Database } from '../../src/db/client.js';
import { products } from '../../src/db/schema.js';
import { insertDraft, type NewInvoice } from '../../src/invoices/draft-insert.js';
import type { InvoiceCreateBody, InvoiceLineBody, InvoiceSchema } from '../../src/invoices/schemas.js';
import { createTax } from '../../src/operations/taxes.js';
import { api, newIdempotencyKey, type Tenant } from './context.js';

export const newKey = () => newIdempotencyKey('inv-test');

export interface ProductFixture {
  name: string;
  inventory?: 'INVENTORY' | 'NON_INVENTORY';
  type?: 'GOODS' | 'SERVICES';
  price?: number;
  /** internal, set by the application */
  costPrice?: string;
  /** internal, set by the application */
  stock?: string;
}

export async function createProduct(
  app: App,
  db: Database,
  tenant: Tenant,
  fixture: ProductFixture,
): Promise<number> {
  const inventory = fixture.inventory ?? 'NON_INVENTORY';
  const type = fixture.type ?? (inventory === 'INVENTORY' ? 'GOODS' : 'SERVICES');
  const res = await api(app, 'POST', '/products', {
    key: tenant.key,
    idempotencyKey: newKey(),
    body: { name: fixture.name, type, inventory, price: fixture.price ?? 100 },
  });
  expect(res.statusCode).toBe(201);
  const id: number = res.json().data.id;
  if (fixture.costPrice !== undefined || fixture.stock !== undefined) {
    await db
      .update(products)
      .set({
        ...(fixture.costPrice !== undefined ? { costPrice: fixture.costPrice } : {}),
        ...(fixture.stock !== undefined ? { stock: fixture.stock } : {}),
      })
      .where(eq(products.id, id));
  }
  return id;
}

export async function createCustomer(app: App, tenant: Tenant, name: string): Promise<number> {
  const res = await api(app, 'POST', '/customers', {
    key: tenant.key,
    idempotencyKey: newKey(),
    body: { name },
  });
  expect(res.statusCode).toBe(201);
  return res.json().data.id;
}

export async function createCompanyTax(
  db: Database,
  companyId: number | null,
  rate: string,
): Promise<number> {
  const tax = await createTax(db, { companyId, name: `IVA ${rate}%`, rate });
  return tax.id;
}

/** The creation body and the invoice resource, typed by the route's own schemas. */
export type DraftLine = InvoiceLineBody;
export type DraftBody = InvoiceCreateBody;
export type InvoiceJson = Static<typeof InvoiceSchema>;

/** POST /invoices that must succeed; returns the created invoice resource. */
export async function createDraft(app: App, tenant: Tenant, body: DraftBody): Promise<InvoiceJson> {
  const res = await api(app, 'POST', '/invoices', { key: tenant.key, idempotencyKey: newKey(), body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** Keys of an invoice resource (section 2.4) in their order; lists carry no `items`. */
export const INVOICE_KEYS = [
  'id',
  'invoice_code',
  'payment_notice_code',
  'document_type',
  'is_payment_notice',
  'notice_kind',
  'is_pos_sale',
  'reference',
  'payment_reference',
  'status',
  'invoice_date',
  'due_date',
  'currency',
  'exchange_rate',
  'subtotal',
  'discount',
  'global_discount_amount',
  'vat_base',
  'tax',
  'grand_total',
  'paid_amount',
  'remaining_amount',
  'notes',
  'customer',
  'items',
  'created_at',
  'updated_at',
];
export const SUMMARY_KEYS = INVOICE_KEYS.filter((key) => key !== 'items');

/**
 * An invoice row without lines under a draft code from `generate`, tried again while the code is
 * taken in the company (what the draft creation does): returns its id.
 */
export async function insertWithDraftCode(
  db: Database,
  values: Omit<NewInvoice, 'invoiceCode'>,
  generate: () => string,
): Promise<number> {
  return (await insertDraft(db, values, [], generate)).row.id;
}
