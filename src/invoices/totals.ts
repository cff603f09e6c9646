// The arithmetic of a draft's totals, exactly as decisions.md states it ("Invoices: totals of a
// draft"): exact decimals, each step rounded half away from zero to 2 places. Pure functions;
// parsing, limits and formats of money are src/money.ts.
import { Decimal, type DecimalValue, money } from '../money.js';

export interface LineInput {
  quantity: DecimalValue;
  price: DecimalValue;
  /** Percentage 0..100; null or absent: no discount. */
  discountPercentage?: DecimalValue | null;
  /** Percentage of the line's tax; null: the line has no tax. */
  taxRate?: DecimalValue | null;
}

/** A line's amounts as exact decimals, each already rounded to 2 places. */
export interface LineAmounts {
  subtotal: Decimal;
  discount: Decimal;
  net: Decimal;
  /** null when the line has no tax. */
  taxRate: Decimal | null;
  taxAmount: Decimal;
  total: Decimal;
}

export interface LineTotals {
  subtotal: string;
  discount: string;
  net: string;
  /** null when the line has no tax. */
  taxRate: string | null;
  taxAmount: string;
  taxIncluded: false;
  total: string;
}

const ZERO = new Decimal(0);

function decimalOf(value: DecimalValue): Decimal {
  return value instanceof Decimal ? value : new Decimal(value);
}

/** Half away from zero, to 2 places. */
function round2(value: Decimal): Decimal {
  return value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

export function lineAmounts(line: LineInput): LineAmounts {
  const subtotal = round2(decimalOf(line.quantity).times(line.price));
  const percentage = line.discountPercentage ?? 0;
  const discount = isZero(percentage) ? ZERO : round2(subtotal.times(percentage).dividedBy(100));
  const net = subtotal.minus(discount);
  const taxRate = line.taxRate === null || line.taxRate === undefined ? null : decimalOf(line.taxRate);
  const taxAmount = taxRate ? round2(net.times(taxRate).dividedBy(100)) : ZERO;
  return { subtotal, discount, net, taxRate, taxAmount, total: net.plus(taxAmount) };
}

function isZero(value: DecimalValue): boolean {
  return value === 0 || (value instanceof Decimal && value.isZero());
}

/** Two-place text of an amount that has 2 places at most already. */
function text2(value: Decimal): string {
  return value.toFixed(2);
}

export function lineTotals(line: LineInput): LineTotals {
  const amounts = lineAmounts(line);
  return {
    subtotal: text2(amounts.subtotal),
    discount: text2(amounts.discount),
    net: text2(amounts.net),
    taxRate: amounts.taxRate === null ? null : amounts.taxRate.toString(),
    taxAmount: text2(amounts.taxAmount),
    taxIncluded: false,
    total: text2(amounts.total),
  };
}

export interface InvoiceTotals {
  subtotal: string;
  discount: string;
  globalDiscountAmount: string;
  /** Sum of the net of the lines that have a tax. */
  vatBase: string;
  tax: string;
  grandTotal: string;
  paidAmount: string;
  remainingAmount: string;
}

/** The invoice's totals of a new draft: sums of its lines, nothing paid yet. */
export function invoiceTotals(lines: readonly LineTotals[]): InvoiceTotals {
  return invoiceTotalsOf(
    lines.map((line) => ({
      subtotal: new Decimal(line.subtotal),
      discount: new Decimal(line.discount),
      net: new Decimal(line.net),
      taxRate: line.taxRate === null ? null : new Decimal(line.taxRate),
      taxAmount: new Decimal(line.taxAmount),
      total: new Decimal(line.total),
    })),
  );
}

/** `invoiceTotals` of lines still as decimals. */
export function invoiceTotalsOf(lines: readonly LineAmounts[]): InvoiceTotals {
  let subtotal = ZERO;
  let discount = ZERO;
  let vatBase = ZERO;
  let tax = ZERO;
  let grandTotal = ZERO;
  for (const line of lines) {
    subtotal = subtotal.plus(line.subtotal);
    discount = discount.plus(line.discount);
    if (line.taxRate !== null) vatBase = vatBase.plus(line.net);
    tax = tax.plus(line.taxAmount);
    grandTotal = grandTotal.plus(line.total);
  }
  const grand = money(grandTotal);
  return {
    subtotal: money(subtotal),
    discount: money(discount),
    globalDiscountAmount: '0.00',
    vatBase: money(vatBase),
    tax: money(tax),
    grandTotal: grand,
    paidAmount: '0.00',
    remainingAmount: grand,
  };
}
