// `bin/invoicing demo` (and `serve` on a fresh embedded database): a realistic Mozambican shop
// with its partner API enabled, customers, products of every type, invoices in every status,
// receipts, a salary and a supplier payment, and two keys (live with every scope, test reading).
// Everything goes through the same services as the API and the operator commands, in one
// transaction: either the whole demo exists or none of it does. Money is decimal text throughout.
import { Decimal } from 'decimal.js';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { createCustomer } from '../customers/service.js';
import type { Database } from '../db/client.js';
import { customers, invoices, products, stockMovements } from '../db/schema.js';
import { createDraftInvoice } from '../invoices/service.js';
import type { ProductBody } from '../products/schemas.js';
import { createProduct } from '../products/service.js';
import { createApiKey, SCOPES } from './api-keys.js';
import { type CompanySummary, createCompany, setPartnerApi } from './companies.js';
import { createGlobalCustomer } from './global-customers.js';
import { cancelInvoice, issueInvoice, recordMovement, recordReceipt, todayIn } from './invoices.js';
import { createTax } from './taxes.js';

export const DEMO_COMPANY = { name: 'Mercearia Baía de Maputo, Lda', nuit: '400512873' } as const;
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

const DEMO_CUSTOMERS = [
  {
    key: 'ana',
    name: 'Ana Cristina Macuácua',
    type: 'individual',
    email: 'ana.macuacua@exemplo.co.mz',
    phone: '+258 84 312 4567',
    nuit: '102345678',
    address: 'Av. Julius Nyerere 1420, Polana Cimento, Maputo',
  },
  {
    key: 'joao',
    name: 'João Manuel Sitoe',
    type: 'individual',
    email: null,
    phone: '+258 82 765 4321',
    nuit: '108765432',
    address: 'Bairro da Machava, Rua 4, Matola',
  },
  {
    key: 'fatima',
    name: 'Fátima Tembe',
    type: 'individual',
    email: 'fatima.tembe@exemplo.co.mz',
    phone: '+258 86 555 0192',
    nuit: '101556677',
    address: 'Rua Correia de Brito 210, Ponta Gêa, Beira',
  },
  {
    key: 'restaurante',
    name: 'Restaurante Costa do Sol, Lda',
    type: 'company',
    email: 'compras@costadosol.exemplo.co.mz',
    phone: '+258 21 45 0038',
    nuit: '400987654',
    address: 'Av. Marginal 10, Costa do Sol, Maputo',
  },
  {
    key: 'escola',
    name: 'Escola Primária Esperança da Matola',
    type: 'company',
    email: 'secretaria@esperanca.exemplo.co.mz',
    phone: '+258 21 78 2210',
    nuit: '500112233',
    address: 'Av. União Africana 300, Matola',
  },
  {
    key: 'transportes',
    name: 'Transportes Chaimite, Lda',
    type: 'company',
    email: 'financeiro@chaimite.exemplo.co.mz',
    phone: '+258 23 32 1234',
    nuit: '401223344',
    address: 'Rua Major Serpa Pinto 55, Beira',
  },
] as const;
type CustomerKey = (typeof DEMO_CUSTOMERS)[number]['key'];

/** Products of every type; `stock` is the opening stock of INVENTORY ones; `taxed` links IVA 16%. */
const DEMO_PRODUCTS: readonly {
  key: string;
  body: Omit<ProductBody, 'tax_id'>;
  taxed: boolean;
  stock?: string;
}[] = [
  {
    key: 'arroz',
    body: {
      name: 'Arroz agulha 5 kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 425,
      sku: 'ARZ-AG-5',
      unity: 'saco',
      reorder_level: 20,
    },
    taxed: true,
    stock: '120',
  },
  {
    key: 'oleo',
    body: {
      name: 'Óleo de girassol 1 L',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 165.5,
      sku: 'OLE-GIR-1',
      unity: 'garrafa',
      reorder_level: 24,
    },
    taxed: true,
    stock: '200',
  },
  {
    key: 'acucar',
    body: {
      name: 'Açúcar castanho 2 kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 150,
      sku: 'ACU-CAS-2',
      unity: 'pacote',
    },
    taxed: true,
    stock: '80',
  },
  {
    key: 'agua',
    body: {
      name: 'Água mineral 1,5 L',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 45,
      pos_price: 50,
      sku: 'AGU-15',
      unity: 'garrafa',
    },
    taxed: true,
    stock: '300',
  },
  {
    key: 'milho',
    // Basic foodstuff: IVA exempt, no tax.
    body: {
      name: 'Farinha de milho 10 kg',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 520,
      sku: 'FAR-MIL-10',
      unity: 'saco',
    },
    taxed: false,
    stock: '60',
  },
  {
    key: 'entrega',
    body: {
      name: 'Entrega ao domicílio (Grande Maputo)',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: 250,
      unity: 'serviço',
      description: 'Entrega no mesmo dia em Maputo e Matola, encomendas até 50 kg.',
    },
    taxed: true,
  },
  {
    key: 'trigo',
    body: {
      name: 'Farinha de trigo a granel',
      type: 'RAW',
      inventory: 'INVENTORY',
      price: 62.5,
      unity: 'kg',
      is_for_sale: false,
      description: 'Matéria-prima da padaria.',
    },
    taxed: false,
    stock: '500',
  },
  {
    key: 'arca',
    body: {
      name: 'Arca congeladora 400 L',
      type: 'ASSETS',
      inventory: 'NON_INVENTORY',
      price: 38500,
      unity: 'unidade',
      is_for_sale: false,
    },
    taxed: true,
  },
  {
    key: 'cabaz',
    body: {
      name: 'Cabaz básico familiar',
      type: 'KIT',
      inventory: 'NON_INVENTORY',
      price: 1250,
      unity: 'cabaz',
      description: 'Arroz 5 kg, óleo 1 L, açúcar 2 kg e farinha de milho 10 kg.',
    },
    taxed: true,
  },
];
type ProductKey = 'arroz' | 'oleo' | 'acucar' | 'agua' | 'milho' | 'entrega' | 'trigo' | 'arca' | 'cabaz';

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

export async function createDemo(db: Database, options: { timeZone: string }): Promise<DemoResult> {
  const today = todayIn(options.timeZone);
  return db.transaction(async (tx) => {
    const created = await createCompany(tx, { ...DEMO_COMPANY });
    const company = await setPartnerApi(tx, created.id, true);
    const companyId = company.id;
    const tax = await createTax(tx, { companyId, name: 'IVA 16%', rate: '16' });
    const globalCustomerId = await findOrCreateConsumidorFinal(tx);

    const customerIds = {} as Record<CustomerKey, number>;
    for (const { key, ...customer } of DEMO_CUSTOMERS) {
      customerIds[key] = (await createCustomer(tx, companyId, customer)).id;
    }

    const productIds = {} as Record<ProductKey, number>;
    const productPrices = {} as Record<ProductKey, number>;
    for (const product of DEMO_PRODUCTS) {
      const body: ProductBody = { ...product.body, ...(product.taxed ? { tax_id: tax.id } : {}) };
      const { id } = await createProduct(tx, companyId, body);
      productIds[product.key as ProductKey] = id;
      productPrices[product.key as ProductKey] = product.body.price;
      if (product.stock) {
        // Opening stock, as a stock entry: what the shop counted when it started.
        await tx.insert(stockMovements).values({ companyId, productId: id, quantity: product.stock });
        await tx.update(products).set({ stock: product.stock }).where(eq(products.id, id));
      }
    }
    // The point of sale already has the catalogue; only the last two changes still wait for it.
    await tx
      .update(products)
      .set({ posSyncPending: false, synced: true })
      .where(
        and(
          eq(products.companyId, companyId),
          sql`${products.id} not in (${productIds.agua}, ${productIds.cabaz})`,
        ),
      );

    const line = (product: ProductKey, quantity: number, extra: { discount?: number } = {}) => ({
      product_id: productIds[product],
      quantity,
      price: productPrices[product],
      ...(DEMO_PRODUCTS.find((p) => p.key === product)?.taxed ? { tax_id: tax.id } : {}),
      ...extra,
    });
    const draft = (
      customer: CustomerKey | 'global',
      daysAgo: number,
      dueIn: number,
      items: ReturnType<typeof line>[],
      reference = '',
    ) =>
      createDraftInvoice(tx, companyId, {
        customer_id: customer === 'global' ? globalCustomerId : customerIds[customer],
        invoice_date: addDays(today, -daysAgo),
        due_date: addDays(today, -daysAgo + dueIn),
        items,
        reference,
      });

    let receipts = 0;
    // Paid in full, in two receipts (M-Pesa, then cash).
    const paid = await draft('ana', 12, 0, [line('cabaz', 2), line('entrega', 1)], 'Encomenda telefónica');
    await issueInvoice(tx, paid.id);
    const paidTotal = await grandTotalOf(tx, paid.id);
    const firstPart = paidTotal.div(2).toDecimalPlaces(0, Decimal.ROUND_DOWN);
    await recordReceipt(tx, {
      invoiceId: paid.id,
      amount: firstPart.toFixed(2),
      date: addDays(today, -12),
      method: 'mpesa',
    });
    await recordReceipt(tx, {
      invoiceId: paid.id,
      amount: paidTotal.minus(firstPart).toFixed(2),
      date: addDays(today, -10),
      method: 'cash',
    });
    receipts += 2;

    // Partially paid: a school's monthly supplies, 30 days to pay, one bank transfer so far.
    const partial = await draft(
      'escola',
      35,
      30,
      [line('arroz', 20), line('acucar', 10, { discount: 5 }), line('milho', 8), line('entrega', 1)],
      'Requisição 2024/117',
    );
    await issueInvoice(tx, partial.id);
    await recordReceipt(tx, {
      invoiceId: partial.id,
      amount: '5000.00',
      date: addDays(today, -20),
      method: 'bank_transfer',
    });
    receipts += 1;

    // Unpaid: issued, due in ten days.
    const unpaid = await draft('joao', 5, 15, [line('milho', 2), line('agua', 6), line('oleo', 3)]);
    await issueInvoice(tx, unpaid.id);

    // Cancelled: issued with the wrong quantities, then cancelled.
    const cancelled = await draft('transportes', 8, 15, [line('agua', 50, { discount: 10 })], 'Pedido 88');
    await issueInvoice(tx, cancelled.id);
    await cancelInvoice(tx, cancelled.id);

    // A sale to the walk-in customer, paid on the spot.
    const counter = await draft('global', 2, 0, [line('oleo', 2), line('acucar', 1)]);
    await issueInvoice(tx, counter.id);
    await recordReceipt(tx, {
      invoiceId: counter.id,
      amount: (await grandTotalOf(tx, counter.id)).toFixed(2),
      date: addDays(today, -2),
      method: 'cash',
    });
    receipts += 1;

    // Drafts, as a partner system would leave them through the API.
    const restaurantDraft = await draft(
      'restaurante',
      0,
      30,
      [line('arroz', 10), line('oleo', 12), line('entrega', 1)],
      'PO-2291',
    );
    const beiraDraft = await draft('fatima', 1, 7, [line('cabaz', 1)]);

    // Treasury movements that are not receipts: the API never shows them.
    await recordMovement(tx, { companyId, kind: 'salary', amount: '18500.00', date: addDays(today, -3) });
    await recordMovement(tx, {
      companyId,
      kind: 'supplier_payment',
      amount: '42750.00',
      date: addDays(today, -15),
    });

    const liveKey = await createApiKey(tx, { companyId, mode: 'live', scopes: [...SCOPES], days: 365 });
    const testKey = await createApiKey(tx, {
      companyId,
      mode: 'test',
      scopes: [...DEMO_TEST_SCOPES],
      days: 365,
    });

    const demoInvoices = [
      { id: restaurantDraft.id, customer: 'restaurante' },
      { id: beiraDraft.id, customer: 'fatima' },
      { id: unpaid.id, customer: 'joao' },
      { id: partial.id, customer: 'escola' },
      { id: paid.id, customer: 'ana' },
      { id: counter.id, customer: 'global' },
      { id: cancelled.id, customer: 'transportes' },
    ];
    const names: Record<string, string> = Object.fromEntries(DEMO_CUSTOMERS.map((c) => [c.key, c.name]));
    const summaries: DemoResult['invoices'] = [];
    for (const invoice of demoInvoices) {
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
      global_customer_id: globalCustomerId,
      invoices: summaries,
      counts: {
        customers: DEMO_CUSTOMERS.length,
        products: DEMO_PRODUCTS.length,
        invoices: demoInvoices.length,
        receipts,
        movements: 2,
      },
    };
  });
}
