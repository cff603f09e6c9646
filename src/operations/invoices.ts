// What the application does with invoices and treasury outside the API (contract section 3:
// "a person, inside the application"): issue a draft, cancel, record a receipt, record other
// treasury movements. The command line calls these with the operator's context; each runs in one
// transaction, records its events with that context's actor, and refuses an operator's mistake
// with an OperationError.
import { and, asc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { type ActingContext, forCompany, inTransaction } from '../context.js';
import { type Database, runInTransaction } from '../db/client.js';
import {
  accountingEntries,
  fiscalSequences,
  type InvoiceStatus,
  invoiceItems,
  invoices,
  payments,
  products,
  stockMovements,
} from '../db/schema.js';
import { findInvoice } from '../invoices/repository.js';
import { Decimal, money, moneyFromText, round2 } from '../money.js';
import { findPayment } from '../payments/repository.js';
import { isCalendarDate, isDatabaseId } from '../values.js';
import { recordEvent } from '../webhooks/events.js';
import { requireCompany } from './companies.js';
import { amountProblem } from './define.js';
import { OperationError } from './errors.js';

export const FISCAL_SERIES = { invoice: 'FT', receipt: 'RC', movement: 'MV' } as const;

/** Accepted `--method` values of a receipt and the payment_method_type each one means. */
export const PAYMENT_METHODS = {
  cash: 'cash',
  bank_transfer: 'bank_transfer',
  card: 'card',
  cheque: 'cheque',
  mpesa: 'mobile_money',
  emola: 'mobile_money',
  mkesh: 'mobile_money',
  mobile_money: 'mobile_money',
} as const;
export type PaymentMethod = keyof typeof PAYMENT_METHODS;

export const MOVEMENT_KINDS = ['salary', 'supplier_payment'] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];

const ISSUED: readonly InvoiceStatus[] = ['unpaid', 'partially_paid', 'paid'];

function requireId(value: number, what: string): number {
  if (!isDatabaseId(value)) {
    throw new OperationError({ key: 'refused.not_an_id', params: { name: what, value } });
  }
  return value;
}

/** A positive amount with at most two decimals, e.g. "1500" or "1500.50" -> "1500.00". */
export function parseAmount(raw: string): string {
  const amount = moneyFromText(String(raw));
  if (typeof amount !== 'string') throw new OperationError(amountProblem(amount.problem, String(raw)));
  return amount;
}

/** A real calendar date written YYYY-MM-DD. */
export function parseDate(raw: string): string {
  if (!isCalendarDate(raw)) throw new OperationError({ key: 'refused.invoice_date', params: { value: raw } });
  return raw;
}

/** Today's date in a time zone, YYYY-MM-DD. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

/**
 * The next number of a company's fiscal series in a year, atomically: the upsert takes the row
 * lock, so concurrent callers get distinct numbers and a number is never handed out twice.
 */
export async function nextFiscalNumber(
  db: Database,
  companyId: number,
  series: string,
  year: number,
): Promise<number> {
  const [row] = await db
    .insert(fiscalSequences)
    .values({ companyId, series, year, lastValue: 1 })
    .onConflictDoUpdate({
      target: [fiscalSequences.companyId, fiscalSequences.series, fiscalSequences.year],
      set: { lastValue: sql`${fiscalSequences.lastValue} + 1` },
    })
    .returning({ lastValue: fiscalSequences.lastValue });
  if (!row) throw new Error('fiscal sequence upsert returned no row');
  return row.lastValue;
}

/** e.g. `FT 2026/000001` */
export function fiscalCode(series: string, year: number, number: number): string {
  return `${series} ${year}/${String(number).padStart(6, '0')}`;
}

/** The next code of a company's series for the year of a document dated `date` (YYYY-MM-DD). */
async function nextDocumentCode(
  db: Database,
  companyId: number,
  series: string,
  date: string,
): Promise<string> {
  const year = Number(date.slice(0, 4));
  return fiscalCode(series, year, await nextFiscalNumber(db, companyId, series, year));
}

async function lockInvoice(db: Database, invoiceId: number) {
  const [invoice] = await db
    .select()
    .from(invoices)
    .where(eq(invoices.id, requireId(invoiceId, 'invoice')))
    .for('update');
  if (!invoice) throw new OperationError({ key: 'refused.invoice_missing', params: { id: invoiceId } });
  return invoice;
}

/**
 * Moves a product's stock by `quantity` (negative: out) for an invoice: one stock movement, and
 * the product's running stock changed to match. Issuing and cancelling both go through here.
 */
async function moveStock(
  db: Database,
  movement: { companyId: number; productId: number; invoiceId: number; quantity: Decimal },
): Promise<void> {
  const quantity = movement.quantity.toFixed();
  await db.insert(stockMovements).values({ ...movement, quantity });
  await db
    .update(products)
    .set({ stock: sql`coalesce(${products.stock}, 0) + ${quantity}::numeric`, updatedAt: sql`now()` })
    .where(eq(products.id, movement.productId));
}

export interface IssuedInvoice {
  id: number;
  invoice_code: string;
  status: InvoiceStatus;
}

/**
 * Issues a draft: the next fiscal number of series FT for the year of its invoice date becomes its
 * code, it is `unpaid` (`paid` when its total is zero), the stock of its INVENTORY products goes
 * down by the line quantities (one stock movement each), its cost is recorded from the products'
 * cost prices and one accounting entry is made. All in one transaction.
 */
export async function issueInvoice(context: ActingContext, invoiceId: number): Promise<IssuedInvoice> {
  return runInTransaction(context.db, async (tx) => {
    const invoice = await lockInvoice(tx, invoiceId);
    if (invoice.status !== 'draft') {
      throw new OperationError({
        key: 'refused.invoice_not_draft',
        params: { id: invoice.id, status: invoice.status },
      });
    }
    const code = await nextDocumentCode(tx, invoice.companyId, FISCAL_SERIES.invoice, invoice.invoiceDate);

    const lines = await tx
      .select()
      .from(invoiceItems)
      .where(eq(invoiceItems.invoiceId, invoice.id))
      .orderBy(asc(invoiceItems.position), asc(invoiceItems.id));
    const productIds = [...new Set(lines.map((line) => line.productId).filter((id) => id !== null))];
    const productRows =
      productIds.length === 0
        ? []
        : await tx
            .select({ id: products.id, inventory: products.inventory, costPrice: products.costPrice })
            .from(products)
            .where(and(eq(products.companyId, invoice.companyId), inArray(products.id, productIds)))
            .orderBy(asc(products.id))
            // Not FOR UPDATE: that would also block the key-share lock a new draft's line takes on
            // its product, and the draft's insert already holds the company's data version, which
            // this transaction's update of the invoice then waits for (a deadlock).
            .for('no key update');
    const productById = new Map(productRows.map((row) => [row.id, row]));

    let costTotal = new Decimal(0);
    for (const line of lines) {
      const product = line.productId === null ? undefined : productById.get(line.productId);
      if (!product) continue;
      const quantity = new Decimal(line.quantity ?? 0);
      if (product.costPrice !== null) {
        costTotal = costTotal.plus(quantity.times(product.costPrice));
        await tx
          .update(invoiceItems)
          .set({ unitCost: product.costPrice })
          .where(eq(invoiceItems.id, line.id));
      }
      if (product.inventory === 'INVENTORY' && !quantity.isZero()) {
        const { companyId } = invoice;
        await moveStock(tx, {
          companyId,
          productId: product.id,
          invoiceId: invoice.id,
          quantity: quantity.negated(),
        });
      }
    }

    const grandTotal = money(invoice.grandTotal ?? 0);
    await tx.insert(accountingEntries).values({
      companyId: invoice.companyId,
      invoiceId: invoice.id,
      description: `Emissão da factura ${code}`,
      debit: grandTotal,
      credit: grandTotal,
    });
    const status: InvoiceStatus = new Decimal(grandTotal).isZero() ? 'paid' : 'unpaid';
    await tx
      .update(invoices)
      .set({
        invoiceCode: code,
        status,
        issuedAt: sql`now()`,
        costTotal: money(round2(costTotal)),
        paidAmount: invoice.paidAmount ?? '0.00',
        remainingAmount: money(new Decimal(grandTotal).minus(invoice.paidAmount ?? 0)),
        updatedAt: sql`now()`,
      })
      .where(eq(invoices.id, invoice.id));
    const event = forCompany(inTransaction(context, tx), invoice.companyId);
    await recordEvent(event, 'invoice.issued', () => findInvoice(event, invoice.id));
    if (status === 'paid') await recordEvent(event, 'invoice.paid', () => findInvoice(event, invoice.id));
    return { id: invoice.id, invoice_code: code, status };
  });
}

/**
 * Cancels a draft or an issued invoice (unpaid, partially paid or paid). Stock moved by its
 * issue goes back (a reversing movement per product) and the issue's entry is reversed.
 */
export async function cancelInvoice(
  context: ActingContext,
  invoiceId: number,
): Promise<{ id: number; status: 'cancelled' }> {
  return runInTransaction(context.db, async (tx) => {
    const invoice = await lockInvoice(tx, invoiceId);
    if (invoice.status === 'cancelled')
      throw new OperationError({ key: 'refused.invoice_cancelled_already', params: { id: invoice.id } });

    if (ISSUED.includes(invoice.status)) {
      const moved = await tx
        .select({
          productId: stockMovements.productId,
          quantity: sql<string>`sum(${stockMovements.quantity})`,
        })
        .from(stockMovements)
        .where(and(eq(stockMovements.invoiceId, invoice.id), isNotNull(stockMovements.productId)))
        .groupBy(stockMovements.productId)
        .orderBy(asc(stockMovements.productId));
      for (const { productId, quantity } of moved) {
        const net = new Decimal(quantity ?? 0);
        if (net.isZero()) continue;
        await moveStock(tx, {
          companyId: invoice.companyId,
          productId,
          invoiceId: invoice.id,
          quantity: net.negated(),
        });
      }
      const grandTotal = money(invoice.grandTotal ?? 0);
      await tx.insert(accountingEntries).values({
        companyId: invoice.companyId,
        invoiceId: invoice.id,
        description: `Anulação da factura ${invoice.invoiceCode}`,
        debit: grandTotal,
        credit: grandTotal,
      });
    }

    await tx
      .update(invoices)
      .set({ status: 'cancelled', updatedAt: sql`now()` })
      .where(eq(invoices.id, invoice.id));
    const event = forCompany(inTransaction(context, tx), invoice.companyId);
    await recordEvent(event, 'invoice.cancelled', () => findInvoice(event, invoice.id));
    return { id: invoice.id, status: 'cancelled' as const };
  });
}

export interface ReceiptInput {
  invoiceId: number;
  /** Decimal text, e.g. "1500.00". */
  amount: string;
  /** YYYY-MM-DD; today in the context's time zone (TZ_NAME) when absent. */
  date?: string;
  /** One of PAYMENT_METHODS; `cash` when absent. */
  method?: string;
}

export interface RecordedReceipt {
  id: number;
  payment_code: string;
  invoice_id: number;
  amount: string;
  /** The invoice's status after the receipt. */
  status: InvoiceStatus;
}

function methodOf(raw: string | undefined): { method: PaymentMethod; type: string } {
  const method = (raw ?? 'cash')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  const normalized = method === 'm_pesa' ? 'mpesa' : method;
  if (!Object.hasOwn(PAYMENT_METHODS, normalized)) {
    throw new OperationError({
      key: 'arg.payment_method',
      params: { method: String(raw), valid: Object.keys(PAYMENT_METHODS).join(', ') },
    });
  }
  const valid = normalized as PaymentMethod;
  return { method: valid, type: PAYMENT_METHODS[valid] };
}

/**
 * Records a receipt (kind `receipt`, code of series RC) against an issued invoice that is not
 * cancelled: at most what remains to pay. The invoice becomes `partially_paid` or `paid`.
 */
export async function recordReceipt(context: ActingContext, input: ReceiptInput): Promise<RecordedReceipt> {
  const amount = parseAmount(input.amount);
  const paymentDate = input.date === undefined ? todayIn(context.timeZone) : parseDate(input.date);
  const { method, type } = methodOf(input.method);
  return runInTransaction(context.db, async (tx) => {
    const invoice = await lockInvoice(tx, input.invoiceId);
    if (invoice.status === 'draft') {
      throw new OperationError({ key: 'refused.receipt_on_draft', params: { id: invoice.id } });
    }
    if (invoice.status === 'cancelled')
      throw new OperationError({ key: 'refused.invoice_cancelled', params: { id: invoice.id } });
    const grandTotal = new Decimal(invoice.grandTotal ?? 0);
    const paid = new Decimal(invoice.paidAmount ?? 0);
    const remaining = grandTotal.minus(paid);
    if (remaining.lte(0))
      throw new OperationError({ key: 'refused.invoice_paid', params: { id: invoice.id } });
    if (new Decimal(amount).gt(remaining)) {
      throw new OperationError({
        key: 'refused.receipt_too_much',
        params: { amount, id: invoice.id, remaining: money(remaining) },
      });
    }

    const code = await nextDocumentCode(tx, invoice.companyId, FISCAL_SERIES.receipt, paymentDate);
    const [payment] = await tx
      .insert(payments)
      .values({
        companyId: invoice.companyId,
        kind: 'receipt',
        invoiceId: invoice.id,
        paymentCode: code,
        paymentDate,
        amount,
        paymentMethod: method,
        paymentMethodType: type,
      })
      .returning({ id: payments.id });
    if (!payment) throw new Error('insert returned no row');
    await tx.insert(accountingEntries).values({
      companyId: invoice.companyId,
      invoiceId: invoice.id,
      paymentId: payment.id,
      description: `Recibo ${code} da factura ${invoice.invoiceCode}`,
      debit: amount,
      credit: amount,
    });

    const newPaid = paid.plus(amount);
    const newRemaining = grandTotal.minus(newPaid);
    const status: InvoiceStatus = newRemaining.lte(0) ? 'paid' : 'partially_paid';
    await tx
      .update(invoices)
      .set({
        paidAmount: money(newPaid),
        remainingAmount: money(newRemaining),
        status,
        updatedAt: sql`now()`,
      })
      .where(eq(invoices.id, invoice.id));
    const event = forCompany(inTransaction(context, tx), invoice.companyId);
    await recordEvent(event, 'payment.created', () => findPayment(event, payment.id));
    const paidEvent = status === 'paid' ? 'invoice.paid' : 'invoice.partially_paid';
    await recordEvent(event, paidEvent, () => findInvoice(event, invoice.id));
    return { id: payment.id, payment_code: code, invoice_id: invoice.id, amount, status };
  });
}

export interface MovementInput {
  companyId: number;
  kind: MovementKind;
  amount: string;
  /** YYYY-MM-DD; today in the context's time zone (TZ_NAME) when absent. */
  date?: string;
}

/**
 * Records a treasury movement that is not a receipt (a salary, a supplier payment): a payments
 * row with no invoice, code of series MV. The API never shows these.
 */
export async function recordMovement(
  context: ActingContext,
  input: MovementInput,
): Promise<{ id: number; kind: MovementKind; amount: string }> {
  const { db } = context;
  if (!(MOVEMENT_KINDS as readonly string[]).includes(input.kind)) {
    throw new OperationError({
      key: 'refused.movement_kind',
      params: { kinds: MOVEMENT_KINDS.join(', '), value: input.kind },
    });
  }
  const amount = parseAmount(input.amount);
  const paymentDate = input.date === undefined ? todayIn(context.timeZone) : parseDate(input.date);
  await requireCompany(db, requireId(input.companyId, 'company'));
  return runInTransaction(db, async (tx) => {
    const code = await nextDocumentCode(tx, input.companyId, FISCAL_SERIES.movement, paymentDate);
    const [row] = await tx
      .insert(payments)
      .values({
        companyId: input.companyId,
        kind: input.kind,
        invoiceId: null,
        paymentCode: code,
        paymentDate,
        amount,
        paymentMethod: 'bank_transfer',
        paymentMethodType: 'bank_transfer',
        notes: input.kind === 'salary' ? 'Salários' : 'Pagamento a fornecedor',
      })
      .returning({ id: payments.id });
    if (!row) throw new Error('insert returned no row');
    return { id: row.id, kind: input.kind, amount };
  });
}
