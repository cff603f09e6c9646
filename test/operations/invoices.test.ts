import { and, asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountingEntries,
  fiscalSequences,
  invoiceItems,
  invoices,
  payments,
  products,
  stockMovements,
} from '../../src/db/schema.js';
import { OperationError } from '../../src/operations/errors.js';
import {
  cancelInvoice,
  issueInvoice,
  parseAmount,
  recordMovement,
  recordReceipt,
  todayIn,
} from '../../src/operations/invoices.js';
import {
  api,
  asOperator,
  createTenant,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import {
  createCompanyTax,
  createCustomer,
  createDraft,
  createProduct,
  type DraftLine,
} from '../helpers/invoices.js';

describe('operations: issue, cancel, receipts, movements', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let customer: number;
  let otherCustomer: number;
  let cement: number;
  let rice: number;
  let delivery: number;
  let otherProduct: number;
  let iva: number;

  const draft = async (items: DraftLine[], invoiceDate = '2026-03-10', who = tenant): Promise<number> =>
    (
      await createDraft(ctx.app, who, {
        customer_id: who === tenant ? customer : otherCustomer,
        invoice_date: invoiceDate,
        items,
      })
    ).id;
  const stockOf = async (id: number) =>
    (await ctx.db.select({ stock: products.stock }).from(products).where(eq(products.id, id)))[0]!.stock;
  const invoiceRow = async (id: number) =>
    (await ctx.db.select().from(invoices).where(eq(invoices.id, id)))[0]!;
  const movementsOf = (invoiceId: number) =>
    ctx.db
      .select({ productId: stockMovements.productId, quantity: stockMovements.quantity })
      .from(stockMovements)
      .where(eq(stockMovements.invoiceId, invoiceId))
      .orderBy(asc(stockMovements.id));
  const entriesOf = (invoiceId: number) =>
    ctx.db.select().from(accountingEntries).where(eq(accountingEntries.invoiceId, invoiceId));
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected an OperationError');
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(OperationError);
        return (error as Error).message;
      },
    );

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Ferragem Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    customer = await createCustomer(ctx.app, tenant, 'Construções Tembe, Lda');
    otherCustomer = await createCustomer(ctx.app, other, 'Cliente Alheio');
    cement = await createProduct(ctx.app, ctx.db, tenant, {
      name: 'Cimento 50kg',
      inventory: 'INVENTORY',
      price: 650,
      costPrice: '480.00',
      stock: '100',
    });
    rice = await createProduct(ctx.app, ctx.db, tenant, {
      name: 'Arroz 25kg',
      inventory: 'INVENTORY',
      price: 1500,
      costPrice: '1123.45',
      stock: '10.5',
    });
    delivery = await createProduct(ctx.app, ctx.db, tenant, {
      name: 'Entrega',
      price: 300,
      costPrice: '120.00',
    });
    otherProduct = await createProduct(ctx.app, ctx.db, other, {
      name: 'Alheio',
      inventory: 'INVENTORY',
      stock: '5',
    });
    iva = await createCompanyTax(ctx.db, tenant.companyId, '16');
  });
  afterAll(() => ctx.close());

  describe('issueInvoice', () => {
    it('gives a draft its fiscal code, unpaid, moves INVENTORY stock, records cost and one entry', async () => {
      const id = await draft([
        { product_id: cement, quantity: 10, price: 650, tax_id: iva },
        { product_id: rice, quantity: 2.5, price: 1500 },
        { product_id: delivery, quantity: 1, price: 300 },
        { product_id: cement, quantity: 5, price: 640 },
      ]);
      const before = await invoiceRow(id);
      const issued = await issueInvoice(asOperator(ctx.db), id);
      expect(issued).toEqual({ id, invoice_code: 'FT 2026/000001', status: 'unpaid' });

      const row = await invoiceRow(id);
      expect(row).toMatchObject({ invoiceCode: 'FT 2026/000001', status: 'unpaid', paidAmount: '0.00' });
      expect(row.issuedAt).toBeInstanceOf(Date);
      expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
      // 15 x 480.00 + 2.5 x 1123.45 + 1 x 120.00 = 7200 + 2808.625 + 120 = 10128.625 -> 10128.63
      expect(row.costTotal).toBe('10128.63');
      expect(row.remainingAmount).toBe(row.grandTotal);
      const units = await ctx.db
        .select({ unitCost: invoiceItems.unitCost })
        .from(invoiceItems)
        .where(eq(invoiceItems.invoiceId, id))
        .orderBy(asc(invoiceItems.position));
      expect(units.map((u) => u.unitCost)).toEqual(['480.00', '1123.45', '120.00', '480.00']);

      expect(Number(await stockOf(cement))).toBe(85);
      expect(Number(await stockOf(rice))).toBe(8);
      expect(await stockOf(delivery)).toBeNull();
      const moved = await movementsOf(id);
      expect(moved.map((m) => [m.productId, Number(m.quantity)])).toEqual([
        [cement, -10],
        [rice, -2.5],
        [cement, -5],
      ]);
      const entries = await entriesOf(id);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        debit: row.grandTotal,
        credit: row.grandTotal,
        companyId: tenant.companyId,
      });

      // The API shows the fiscal code and state, never the cost.
      const read = await api(ctx.app, 'GET', `/invoices/${id}`, { key: tenant.key });
      expect(read.json().data).toMatchObject({ invoice_code: 'FT 2026/000001', status: 'unpaid' });
      expect(read.body).not.toContain('10128.63');
      expect(read.body).not.toContain('1123.45');
    });

    it('numbers per company, series and year of the invoice date, never twice', async () => {
      const a = await draft([{ product_id: delivery, quantity: 1, price: 300 }]);
      const b = await draft([{ product_id: delivery, quantity: 1, price: 300 }], '2025-12-31');
      const c = await draft([{ product_id: otherProduct, quantity: 1, price: 1 }], '2026-01-02', other);
      expect((await issueInvoice(asOperator(ctx.db), a)).invoice_code).toBe('FT 2026/000002');
      expect((await issueInvoice(asOperator(ctx.db), b)).invoice_code).toBe('FT 2025/000001');
      expect((await issueInvoice(asOperator(ctx.db), c)).invoice_code).toBe('FT 2026/000001');
      expect(Number(await stockOf(otherProduct))).toBe(4);

      // Concurrent issues still get distinct, consecutive numbers.
      const drafts = await Promise.all(
        Array.from({ length: 6 }, () => draft([{ product_id: delivery, quantity: 1, price: 1 }])),
      );
      const codes = (await Promise.all(drafts.map((id) => issueInvoice(asOperator(ctx.db), id)))).map(
        (r) => r.invoice_code,
      );
      expect([...codes].sort()).toEqual(
        ['000003', '000004', '000005', '000006', '000007', '000008'].map((n) => `FT 2026/${n}`),
      );
      const [sequence] = await ctx.db
        .select()
        .from(fiscalSequences)
        .where(
          and(
            eq(fiscalSequences.companyId, tenant.companyId),
            eq(fiscalSequences.series, 'FT'),
            eq(fiscalSequences.year, 2026),
          ),
        );
      expect(sequence!.lastValue).toBe(8);
    });

    it('refuses what is not a draft, and ids that do not exist', async () => {
      const id = await draft([{ product_id: delivery, quantity: 1, price: 300 }]);
      const { invoice_code } = await issueInvoice(asOperator(ctx.db), id);
      expect(await refusal(issueInvoice(asOperator(ctx.db), id))).toMatch(/only a draft/);
      expect((await invoiceRow(id)).invoiceCode).toBe(invoice_code);
      expect(await refusal(issueInvoice(asOperator(ctx.db), 999999))).toMatch(/does not exist/);
      expect(await refusal(issueInvoice(asOperator(ctx.db), 0))).toMatch(/positive integer/);
    });

    it('an invoice of zero is paid once issued', async () => {
      const id = await draft([{ product_id: delivery, quantity: 1, price: 0 }]);
      expect((await issueInvoice(asOperator(ctx.db), id)).status).toBe('paid');
    });
  });

  describe('recordReceipt', () => {
    it('partially paid, then paid; codes of series RC; methods and their types', async () => {
      const id = await draft([{ product_id: delivery, quantity: 1, price: 1000, tax_id: iva }]); // 1160.00
      await issueInvoice(asOperator(ctx.db), id);
      const first = await recordReceipt(asOperator(ctx.db), {
        invoiceId: id,
        amount: '160',
        date: '2026-03-11',
        method: 'mpesa',
      });
      expect(first).toEqual({
        id: expect.any(Number),
        payment_code: 'RC 2026/000001',
        invoice_id: id,
        amount: '160.00',
        status: 'partially_paid',
      });
      expect(await invoiceRow(id)).toMatchObject({
        status: 'partially_paid',
        paidAmount: '160.00',
        remainingAmount: '1000.00',
      });
      expect(await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '1000.01' }))).toMatch(
        /exceeds/,
      );
      const second = await recordReceipt(asOperator(ctx.db), {
        invoiceId: id,
        amount: '1000.00',
        method: 'Bank Transfer',
      });
      expect(second).toMatchObject({ payment_code: 'RC 2026/000002', status: 'paid', amount: '1000.00' });
      expect(await invoiceRow(id)).toMatchObject({
        status: 'paid',
        paidAmount: '1160.00',
        remainingAmount: '0.00',
      });
      expect(await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '1' }))).toMatch(
        /already paid/,
      );

      const rows = await ctx.db
        .select()
        .from(payments)
        .where(eq(payments.invoiceId, id))
        .orderBy(asc(payments.id));
      expect(rows.map((r) => [r.kind, r.paymentMethod, r.paymentMethodType, r.paymentDate])).toEqual([
        ['receipt', 'mpesa', 'mobile_money', '2026-03-11'],
        ['receipt', 'bank_transfer', 'bank_transfer', todayIn('Africa/Maputo')],
      ]);
      expect((await entriesOf(id)).filter((e) => e.paymentId !== null)).toHaveLength(2);

      const listed = await api(ctx.app, 'GET', `/payments?invoice_id=${id}&sort=amount`, { key: tenant.key });
      expect(listed.json().data.map((p: { amount: string }) => p.amount)).toEqual(['160.00', '1000.00']);
    });

    it('defaults to cash and today in Africa/Maputo', async () => {
      const id = await draft([{ product_id: delivery, quantity: 1, price: 50 }]);
      await issueInvoice(asOperator(ctx.db), id);
      const receipt = await recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '50' });
      const [row] = await ctx.db.select().from(payments).where(eq(payments.id, receipt.id));
      expect(row).toMatchObject({
        paymentMethod: 'cash',
        paymentMethodType: 'cash',
        paymentDate: todayIn('Africa/Maputo'),
      });
    });

    it('refuses drafts, cancelled invoices and bad amounts, dates or methods', async () => {
      const id = await draft([{ product_id: delivery, quantity: 1, price: 100 }]);
      expect(await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '10' }))).toMatch(
        /draft/,
      );
      await issueInvoice(asOperator(ctx.db), id);
      for (const amount of ['0', '-5', '10.001', 'abc', '1,5', '']) {
        expect(await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: id, amount })), amount).toMatch(
          /amount/,
        );
      }
      expect(
        await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '1', date: '2026-02-30' })),
      ).toMatch(/date/);
      expect(
        await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '1', method: 'bitcoin' })),
      ).toMatch(/payment method/);
      expect(await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: 999999, amount: '1' }))).toMatch(
        /does not exist/,
      );
      await cancelInvoice(asOperator(ctx.db), id);
      expect(await refusal(recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '1' }))).toMatch(
        /cancelled/,
      );
      expect(await invoiceRow(id)).toMatchObject({ paidAmount: '0.00' });
    });
  });

  describe('cancelInvoice', () => {
    it('returns the stock an issue moved and reverses its entry', async () => {
      const stockBefore = Number(await stockOf(cement));
      const id = await draft([
        { product_id: cement, quantity: 4, price: 650 },
        { product_id: cement, quantity: 1.25, price: 650 },
        { product_id: delivery, quantity: 1, price: 300 },
      ]);
      await issueInvoice(asOperator(ctx.db), id);
      expect(Number(await stockOf(cement))).toBe(stockBefore - 5.25);
      await recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '100' });
      expect(await cancelInvoice(asOperator(ctx.db), id)).toEqual({ id, status: 'cancelled' });
      expect(Number(await stockOf(cement))).toBe(stockBefore);
      expect((await movementsOf(id)).map((m) => Number(m.quantity))).toEqual([-4, -1.25, 5.25]);
      expect((await entriesOf(id)).filter((e) => e.paymentId === null)).toHaveLength(2);
      const row = await invoiceRow(id);
      expect(row.status).toBe('cancelled');
      expect(row.invoiceCode).toMatch(/^FT 2026\//);
      expect(await refusal(cancelInvoice(asOperator(ctx.db), id))).toMatch(/already cancelled/);
    });

    it('cancels a draft without touching stock or entries', async () => {
      const stockBefore = await stockOf(cement);
      const id = await draft([{ product_id: cement, quantity: 3, price: 650 }]);
      await cancelInvoice(asOperator(ctx.db), id);
      expect(await stockOf(cement)).toBe(stockBefore);
      expect(await movementsOf(id)).toEqual([]);
      expect(await entriesOf(id)).toEqual([]);
      const read = await api(ctx.app, 'GET', `/invoices/${id}`, { key: tenant.key });
      expect(read.json().data).toMatchObject({
        status: 'cancelled',
        invoice_code: expect.stringMatching(/^DRAFT-/),
      });
    });

    it('cancels a paid invoice', async () => {
      const id = await draft([{ product_id: delivery, quantity: 1, price: 20 }]);
      await issueInvoice(asOperator(ctx.db), id);
      await recordReceipt(asOperator(ctx.db), { invoiceId: id, amount: '20' });
      expect((await cancelInvoice(asOperator(ctx.db), id)).status).toBe('cancelled');
      expect(await refusal(cancelInvoice(asOperator(ctx.db), 999999))).toMatch(/does not exist/);
    });
  });

  describe('recordMovement', () => {
    it('salaries and supplier payments: payments rows with no invoice, codes of series MV', async () => {
      const salary = await recordMovement(asOperator(ctx.db), {
        companyId: tenant.companyId,
        kind: 'salary',
        amount: '18500',
        date: '2026-03-31',
      });
      expect(salary).toEqual({ id: expect.any(Number), kind: 'salary', amount: '18500.00' });
      const supplier = await recordMovement(asOperator(ctx.db), {
        companyId: tenant.companyId,
        kind: 'supplier_payment',
        amount: '42750.50',
        date: '2026-04-02',
      });
      const rows = await ctx.db
        .select()
        .from(payments)
        .where(inArray(payments.id, [salary.id, supplier.id]));
      expect(rows.map((r) => [r.kind, r.paymentCode, r.invoiceId, r.amount]).sort()).toEqual([
        ['salary', 'MV 2026/000001', null, '18500.00'],
        ['supplier_payment', 'MV 2026/000002', null, '42750.50'],
      ]);
      for (const id of [salary.id, supplier.id]) {
        const res = await api(ctx.app, 'GET', `/payments/${id}`, { key: tenant.key });
        expect(res.statusCode).toBe(404);
      }
    });

    it('refuses unknown kinds, companies and amounts', async () => {
      expect(
        await refusal(
          recordMovement(asOperator(ctx.db), {
            companyId: tenant.companyId,
            kind: 'receipt' as never,
            amount: '1',
          }),
        ),
      ).toMatch(/kind/);
      expect(
        await refusal(recordMovement(asOperator(ctx.db), { companyId: 999999, kind: 'salary', amount: '1' })),
      ).toMatch(/company/);
      expect(
        await refusal(
          recordMovement(asOperator(ctx.db), { companyId: tenant.companyId, kind: 'salary', amount: '0' }),
        ),
      ).toMatch(/amount/);
    });
  });

  it('parses amounts and dates strictly', () => {
    expect(parseAmount('1500')).toBe('1500.00');
    expect(parseAmount(' 1500.5 ')).toBe('1500.50');
    expect(() => parseAmount('1e3')).toThrow(OperationError);
    expect(todayIn('Africa/Maputo', new Date('2026-03-10T22:30:00Z'))).toBe('2026-03-11');
    expect(todayIn('UTC', new Date('2026-03-10T22:30:00Z'))).toBe('2026-03-10');
  });
});
