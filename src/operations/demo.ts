// `bin/invoicing demo` (and `serve` on a fresh embedded database): a realistic Mozambican shop
// with its partner API enabled, customers, products of every type, invoices in every status,
// receipts, a salary and a supplier payment, and two keys (live with every scope, test reading).
// Everything goes through the same services as the API and the operator commands, in one
// transaction: either the whole demo exists or none of it does. Money is decimal text throughout.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { type ActingContext, type CompanyContext, forCompany, inTransaction } from '../context.js';
import { createCustomer } from '../customers/service.js';
import { type Database, runInTransaction } from '../db/client.js';
import { customers, invoices, products, stockMovements } from '../db/schema.js';
import { createDraftInvoice } from '../invoices/service.js';
import { Decimal } from '../money.js';
import type { ProductBody } from '../products/schemas.js';
import { createProduct } from '../products/service.js';
import { createApiKey, SCOPES } from './api-keys.js';
import { type CompanySummary, createCompany, hasAnyCompany, setPartnerApi } from './companies.js';
import {
  type CustomerKey,
  DEMO_COMPANY,
  DEMO_CUSTOMERS,
  DEMO_PRODUCTS,
  type ProductKey,
} from './demo-data.js';
import { createGlobalCustomer } from './global-customers.js';
import { cancelInvoice, issueInvoice, recordMovement, recordReceipt, todayIn } from './invoices.js';
import { createTax } from './taxes.js';

export { DEMO_COMPANY };

export const DEMO_TEST_SCOPES = [
  'customers:read',
  'products:read',
  'invoices:read',
  'payments:read',
] as const;

export interface DemoKey {
  id: number;
  key: string;
  mode: 'live' | 'test';
  scopes: string[];
  expires_at: string;
}

export interface DemoResult {
  /** The demo company's id. */
  id: number;
  company: CompanySummary;
  live_key: DemoKey;
  test_key: DemoKey;
  tax: { id: number; name: string; rate: string };
  global_customer_id: number;
  invoices: { id: number; status: string; customer: string }[];
  counts: { customers: number; products: number; invoices: number; receipts: number; movements: number };
}

function addDays(date: string, days: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

async function findOrCreateConsumidorFinal(db: Database): Promise<number> {
  const [existing] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(isNull(customers.companyId), sql`lower(${customers.name}) = 'consumidor final'`))
    .limit(1);
  if (existing) return existing.id;
  const created = await createGlobalCustomer(db, { name: 'Consumidor Final', nuit: '999999999' });
  return created.id;
}

async function grandTotalOf(db: Database, invoiceId: number): Promise<Decimal> {
  const [row] = await db
    .select({ grandTotal: invoices.grandTotal })
    .from(invoices)
    .where(eq(invoices.id, invoiceId));
  return new Decimal(row?.grandTotal ?? '0');
}

async function statusOf(db: Database, invoiceId: number): Promise<string> {
  const [row] = await db.select({ status: invoices.status }).from(invoices).where(eq(invoices.id, invoiceId));
  return row?.status ?? 'unknown';
}

function keyOf(key: Awaited<ReturnType<typeof createApiKey>>): DemoKey {
  return { id: key.id, key: key.key, mode: key.mode, scopes: key.scopes, expires_at: key.expires_at };
}

interface Catalogue {
  customerIds: Record<CustomerKey, number>;
  globalCustomerId: number;
  productIds: Record<ProductKey, number>;
  taxId: number;
}

async function createDemoCustomers(context: CompanyContext): Promise<Record<CustomerKey, number>> {
  const ids = {} as Record<CustomerKey, number>;
  for (const { key, ...customer } of DEMO_CUSTOMERS) ids[key] = (await createCustomer(context, customer)).id;
  return ids;
}

/** Every product through the API's service, with opening stock; the POS already has all but two. */
async function createDemoProducts(
  context: CompanyContext,
  taxId: number,
): Promise<Record<ProductKey, number>> {
  const { db, companyId } = context;
  const ids = {} as Record<ProductKey, number>;
  for (const product of DEMO_PRODUCTS) {
    const body: ProductBody = { ...product.body, ...(product.taxed ? { tax_id: taxId } : {}) };
    const { id } = await createProduct(context, body);
    ids[product.key as ProductKey] = id;
    if (product.stock) {
      // Opening stock, as a stock entry: what the shop counted when it started.
      await db.insert(stockMovements).values({ companyId, productId: id, quantity: product.stock });
      await db.update(products).set({ stock: product.stock }).where(eq(products.id, id));
    }
  }
  await db
    .update(products)
    .set({ posSyncPending: false, synced: true })
    .where(and(eq(products.companyId, companyId), sql`${products.id} not in (${ids.agua}, ${ids.cabaz})`));
  return ids;
}

type DemoLine = ReturnType<ReturnType<typeof lineMaker>>;

function lineMaker(catalogue: Catalogue) {
  return (product: ProductKey, quantity: number, extra: { discount?: number } = {}) => {
    const definition = DEMO_PRODUCTS.find((p) => p.key === product);
    return {
      product_id: catalogue.productIds[product],
      quantity,
      price: definition?.body.price ?? 0,
      ...(definition?.taxed ? { tax_id: catalogue.taxId } : {}),
      ...extra,
    };
  };
}

/**
 * Invoices in every status, as a shop's month leaves them: paid in two receipts, partially paid,
 * unpaid, cancelled, a walk-in sale, and two drafts a partner system created.
 */
async function createDemoInvoices(
  context: CompanyContext,
  catalogue: Catalogue,
  today: string,
): Promise<{ invoices: { id: number; customer: CustomerKey | 'global' }[]; receipts: number }> {
  const { db } = context;
  const line = lineMaker(catalogue);
  const draft = async (
    customer: CustomerKey | 'global',
    daysAgo: number,
    dueIn: number,
    items: DemoLine[],
    reference = '',
  ) => {
    const { id } = await createDraftInvoice(context, {
      customer_id: customer === 'global' ? catalogue.globalCustomerId : catalogue.customerIds[customer],
      invoice_date: addDays(today, -daysAgo),
      due_date: addDays(today, -daysAgo + dueIn),
      items,
      reference,
    });
    return { id, customer };
  };
  const receipt = (invoiceId: number, amount: Decimal | string, daysAgo: number, method: string) =>
    recordReceipt(context, {
      invoiceId,
      amount: typeof amount === 'string' ? amount : amount.toFixed(2),
      date: addDays(today, -daysAgo),
      method,
    });

  // Paid in full, in two receipts (M-Pesa, then cash).
  const paid = await draft('ana', 12, 0, [line('cabaz', 2), line('entrega', 1)], 'Encomenda telefónica');
  await issueInvoice(context, paid.id);
  const paidTotal = await grandTotalOf(db, paid.id);
  const firstPart = paidTotal.div(2).toDecimalPlaces(0, Decimal.ROUND_DOWN);
  await receipt(paid.id, firstPart, 12, 'mpesa');
  await receipt(paid.id, paidTotal.minus(firstPart), 10, 'cash');

  // Partially paid: a school's monthly supplies, 30 days to pay, one bank transfer so far.
  const partial = await draft(
    'escola',
    35,
    30,
    [line('arroz', 20), line('acucar', 10, { discount: 5 }), line('milho', 8), line('entrega', 1)],
    'Requisição 2024/117',
  );
  await issueInvoice(context, partial.id);
  await receipt(partial.id, '5000.00', 20, 'bank_transfer');

  // Unpaid: issued, due in ten days.
  const unpaid = await draft('joao', 5, 15, [line('milho', 2), line('agua', 6), line('oleo', 3)]);
  await issueInvoice(context, unpaid.id);

  // Cancelled: issued with the wrong quantities, then cancelled.
  const cancelled = await draft('transportes', 8, 15, [line('agua', 50, { discount: 10 })], 'Pedido 88');
  await issueInvoice(context, cancelled.id);
  await cancelInvoice(context, cancelled.id);

  // A sale to the walk-in customer, paid on the spot.
  const counter = await draft('global', 2, 0, [line('oleo', 2), line('acucar', 1)]);
  await issueInvoice(context, counter.id);
  await receipt(counter.id, await grandTotalOf(db, counter.id), 2, 'cash');

  // Drafts, as a partner system would leave them through the API.
  const restaurant = await draft(
    'restaurante',
    0,
    30,
    [line('arroz', 10), line('oleo', 12), line('entrega', 1)],
    'PO-2291',
  );
  const beira = await draft('fatima', 1, 7, [line('cabaz', 1)]);

  return { invoices: [restaurant, beira, unpaid, partial, paid, counter, cancelled], receipts: 4 };
}

/** Arbitrary constant ("inv-demo" in ASCII): demo creations on one database take turns. */
const DEMO_LOCK_KEY = '7596498616479743855';
/** How long a demo creation waits for another one to finish (bounded, like every wait). */
const DEMO_LOCK_WAIT = '60s';

/**
 * Creates the demo company, in one transaction; its keys' `expires_at` in the context's time zone.
 * `onlyIntoEmpty` (`serve --demo`, and the first start on an embedded database): only when the
 * database has no company yet, decided under a lock, so that two servers started together on an
 * empty database create one demo company; null when one exists.
 */
export async function createDemo(acting: ActingContext): Promise<DemoResult>;
export async function createDemo(
  acting: ActingContext,
  options: { onlyIntoEmpty: boolean },
): Promise<DemoResult | null>;
export async function createDemo(
  acting: ActingContext,
  options: { onlyIntoEmpty?: boolean } = {},
): Promise<DemoResult | null> {
  const today = todayIn(acting.timeZone);
  return runInTransaction(acting.db, async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = '${DEMO_LOCK_WAIT}'`));
    await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_LOCK_KEY}::bigint)`);
    if (options.onlyIntoEmpty && (await hasAnyCompany(tx))) return null;
    const company = await setPartnerApi(tx, (await createCompany(tx, { ...DEMO_COMPANY })).id, true);
    const context = forCompany(inTransaction(acting, tx), company.id);
    const tax = await createTax(tx, { companyId: company.id, name: 'IVA 16%', rate: '16' });
    const catalogue: Catalogue = {
      globalCustomerId: await findOrCreateConsumidorFinal(tx),
      customerIds: await createDemoCustomers(context),
      productIds: await createDemoProducts(context, tax.id),
      taxId: tax.id,
    };
    const made = await createDemoInvoices(context, catalogue, today);

    // Treasury movements that are not receipts: the API never shows them.
    const companyId = company.id;
    await recordMovement(context, {
      companyId,
      kind: 'salary',
      amount: '18500.00',
      date: addDays(today, -3),
    });
    await recordMovement(context, {
      companyId,
      kind: 'supplier_payment',
      amount: '42750.00',
      date: addDays(today, -15),
    });

    const liveKey = await createApiKey(context, { companyId, mode: 'live', scopes: [...SCOPES], days: 365 });
    const testKey = await createApiKey(context, {
      companyId,
      mode: 'test',
      scopes: [...DEMO_TEST_SCOPES],
      days: 365,
    });

    const names: Record<string, string> = Object.fromEntries(DEMO_CUSTOMERS.map((c) => [c.key, c.name]));
    const summaries: DemoResult['invoices'] = [];
    for (const invoice of made.invoices) {
      summaries.push({
        id: invoice.id,
        status: await statusOf(tx, invoice.id),
        customer: names[invoice.customer] ?? 'Consumidor Final',
      });
    }
    return {
      id: companyId,
      company,
      live_key: keyOf(liveKey),
      test_key: keyOf(testKey),
      tax: { id: tax.id, name: tax.name, rate: tax.rate },
      global_customer_id: catalogue.globalCustomerId,
      invoices: summaries,
      counts: {
        customers: DEMO_CUSTOMERS.length,
        products: DEMO_PRODUCTS.length,
        invoices: made.invoices.length,
        receipts: made.receipts,
        movements: 2,
      },
    };
  });
}
