// decisions.md, "Invoices: totals of a draft": "tax_rate comes from the line's tax: the line's
// tax_id when the field is sent; when the field is left out, the product's own tax (the one whose
// rate the product shows as tax_rate) ...; "tax_id": null sent explicitly means no tax (null
// rate, "0.00" tax). A product without a tax and no tax_id: no tax." Through POST /invoices, on
// both storages, every line and total checked against the independent whole-number oracle of
// test/helpers/totals-oracle.ts, and the tax each line keeps.
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceItems, products } from '../../src/db/schema.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import { createCompanyTax, createCustomer, type InvoiceJson, newKey } from '../helpers/invoices.js';
import { cents, type OracleLine, oracleInvoice, oracleLine, scaled } from '../helpers/totals-oracle.js';

const RULE = 'decisions.md "Invoices: totals of a draft"';

let ctx: TestContext;
let tenant: Tenant;
let customerId: number;
let iva16: number;
let globalIva17: number;
let foreignTax: number;
/** Products of the tenant and the tax each shows (its tax id and rate x 10^4; null: none). */
const catalogue: Record<string, { id: number; taxId: number | null; rate: bigint | null }> = {};

async function product(name: string, taxId: number | null): Promise<number> {
  const res = await api(ctx.app, 'POST', '/products', {
    key: tenant.key,
    idempotencyKey: newKey(),
    body: {
      name,
      type: 'GOODS',
      inventory: 'NON_INVENTORY',
      price: 100,
      ...(taxId === null ? {} : { tax_id: taxId }),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

beforeAll(async () => {
  ctx = await startTestApp();
  tenant = await createTenant(ctx.db, { name: 'Ferragem Impostos' });
  const other = await createTenant(ctx.db, { name: 'Outra Empresa' });
  customerId = await createCustomer(ctx.app, tenant, 'Cliente dos Impostos');
  iva16 = await createCompanyTax(ctx.db, tenant.companyId, '16');
  globalIva17 = await createCompanyTax(ctx.db, null, '17');
  foreignTax = await createCompanyTax(ctx.db, other.companyId, '5');
  catalogue.iva16 = { id: await product('Tinta 20 L (IVA 16%)', iva16), taxId: iva16, rate: 160000n };
  catalogue.global17 = {
    id: await product('Parafusos (imposto global 17%)', globalIva17),
    taxId: globalIva17,
    rate: 170000n,
  };
  catalogue.untaxed = { id: await product('Livro escolar (isento)', null), taxId: null, rate: null };
  // Data the application left behind: a product linked to another company's tax. The product
  // shows no tax_rate, so a line that leaves tax_id out has no tax either.
  const foreignLinked = await product('Produto antigo', null);
  await ctx.db.update(products).set({ taxId: foreignTax }).where(eq(products.id, foreignLinked));
  catalogue.foreignLinked = { id: foreignLinked, taxId: null, rate: null };
});
afterAll(() => ctx?.close());

type TaxChoice = 'left out' | 'null' | 'iva16' | 'global17';

interface Line {
  product: keyof typeof catalogue;
  tax: TaxChoice;
  quantity: bigint;
  price: bigint;
  discount: bigint | null;
}

/** The line's tax by the rule: id and rate x 10^4. */
function expectedTax(line: Line): { taxId: number | null; rate: bigint | null } {
  if (line.tax === 'left out')
    return { taxId: catalogue[line.product]!.taxId, rate: catalogue[line.product]!.rate };
  if (line.tax === 'null') return { taxId: null, rate: null };
  return line.tax === 'iva16' ? { taxId: iva16, rate: 160000n } : { taxId: globalIva17, rate: 170000n };
}

function requestLine(line: Line): Record<string, unknown> {
  return {
    product_id: catalogue[line.product]!.id,
    quantity: scaled(line.quantity, 4),
    price: scaled(line.price, 2),
    ...(line.discount === null ? {} : { discount: scaled(line.discount, 4) }),
    ...(line.tax === 'left out'
      ? {}
      : { tax_id: line.tax === 'null' ? null : line.tax === 'iva16' ? iva16 : globalIva17 }),
  };
}

/** Creates the draft, checks it against the oracle and the stored tax of each line; returns it. */
async function createAndCheck(lines: Line[]): Promise<InvoiceJson> {
  const res = await api(ctx.app, 'POST', '/invoices', {
    key: tenant.key,
    idempotencyKey: newKey(),
    body: { customer_id: customerId, invoice_date: '2026-11-22', items: lines.map(requestLine) },
  });
  expect(res.statusCode, res.body).toBe(201);
  const invoice: InvoiceJson = res.json().data;
  const expected = lines.map((line) => {
    const { rate } = expectedTax(line);
    const oracle: OracleLine = {
      quantity: line.quantity,
      price: line.price,
      discount: line.discount,
      taxRate: rate,
    };
    return { amounts: oracleLine(oracle), rate };
  });
  invoice.items.forEach((item, index) => {
    const { amounts, rate } = expected[index]!;
    expect(item).toMatchObject({
      tax_rate: rate === null ? null : scaled(rate, 4),
      tax_amount: cents(amounts.tax),
      tax_included: false,
      discount: cents(amounts.discount),
      total: cents(amounts.total),
    });
  });
  expect(invoice).toMatchObject(oracleInvoice(expected.map((line) => line.amounts)));
  // The tax each line keeps (not shown by the API; issuing uses it).
  const stored = await ctx.db
    .select({ taxId: invoiceItems.taxId })
    .from(invoiceItems)
    .where(eq(invoiceItems.invoiceId, invoice.id))
    .orderBy(invoiceItems.id);
  expect(stored.map((row) => row.taxId)).toEqual(lines.map((line) => expectedTax(line).taxId));
  // A later read is the same invoice.
  const read = await api(ctx.app, 'GET', `/invoices/${invoice.id}`, { key: tenant.key });
  expect(read.body).toBe(res.body);
  return invoice;
}

describe('the tax of a draft line', () => {
  it(`${RULE}: "when the field is left out, the product's own tax" (a company tax and a global one)`, async () => {
    const invoice = await createAndCheck([
      { product: 'iva16', tax: 'left out', quantity: 30000n, price: 125000n, discount: 100000n },
      { product: 'global17', tax: 'left out', quantity: 10000n, price: 1005n, discount: null },
    ]);
    // 3 x 1250.00 = 3750.00, 10% off = 3375.00, 16% = 540.00; 10.05 at 17% = 1.7085 -> 1.71
    expect(invoice.items.map((item) => [item.tax_rate, item.tax_amount, item.total])).toEqual([
      [16, '540.00', '3915.00'],
      [17, '1.71', '11.76'],
    ]);
    expect(invoice).toMatchObject({ vat_base: '3385.05', tax: '541.71', grand_total: '3926.76' });
  });

  it(`${RULE}: '"tax_id": null sent explicitly means no tax (null rate, "0.00" tax)', even on a taxed product`, async () => {
    const invoice = await createAndCheck([
      { product: 'iva16', tax: 'null', quantity: 10000n, price: 10000n, discount: null },
    ]);
    expect(invoice.items[0]).toMatchObject({ tax_rate: null, tax_amount: '0.00', total: '100.00' });
    expect(invoice).toMatchObject({ vat_base: '0.00', tax: '0.00', grand_total: '100.00' });
  });

  it(`${RULE}: "the line's tax_id when the field is sent", whatever the product's own`, async () => {
    const invoice = await createAndCheck([
      { product: 'iva16', tax: 'global17', quantity: 10000n, price: 10000n, discount: null },
      { product: 'untaxed', tax: 'iva16', quantity: 10000n, price: 10000n, discount: null },
    ]);
    expect(invoice.items.map((item) => item.tax_rate)).toEqual([17, 16]);
  });

  it(`${RULE}: "A product without a tax and no tax_id: no tax" (also one whose tax the company cannot use)`, async () => {
    const invoice = await createAndCheck([
      { product: 'untaxed', tax: 'left out', quantity: 20000n, price: 999n, discount: null },
      { product: 'foreignLinked', tax: 'left out', quantity: 10000n, price: 500n, discount: null },
    ]);
    expect(invoice.items.map((item) => [item.tax_rate, item.tax_amount])).toEqual([
      [null, '0.00'],
      [null, '0.00'],
    ]);
    const shown = await api(ctx.app, 'GET', `/products/${catalogue.foreignLinked!.id}`, { key: tenant.key });
    expect(shown.json().data.tax_rate).toBeNull();
  });

  it(`${RULE}: any mix of left out, null and ids, totals exact against the oracle`, async () => {
    const line = fc.record({
      product: fc.constantFrom('iva16', 'global17', 'untaxed', 'foreignLinked'),
      tax: fc.constantFrom<TaxChoice>('left out', 'null', 'iva16', 'global17'),
      quantity: fc.bigInt({ min: 1n, max: 10n ** 8n }), // x 10^4
      price: fc.bigInt({ min: 0n, max: 10n ** 8n }), // cents
      discount: fc.option(fc.bigInt({ min: 0n, max: 100n * 10n ** 4n })), // x 10^4
    });
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 8 }), async (lines) => {
        await createAndCheck(lines);
      }),
      { numRuns: 25 },
    );
  });
});
