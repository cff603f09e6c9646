// The arithmetic of a draft's totals, exactly as decisions.md states it ("Invoices: totals of a
// draft"): exact decimals, each step rounded half away from zero to 2 places. Pure functions.
import { Decimal as BaseDecimal } from 'decimal.js';

/**
 * Enough significant digits that no product of a quantity (18,4) and a price (18,2) is ever
 * rounded before the explicit round2; ROUND_HALF_UP in decimal.js is half away from zero.
 */
export const Decimal = BaseDecimal.clone({ precision: 64, rounding: BaseDecimal.ROUND_HALF_UP });
export type Decimal = InstanceType<typeof Decimal>;
type DecimalValue = string | number | Decimal;

/** Half away from zero, to 2 places: 49.995 -> 50.00, -2.345 -> -2.35. */
export function round2(value: DecimalValue): Decimal {
  return new Decimal(value).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/** A money amount as the API shows it: two places, e.g. "1250.00". */
export function money(value: DecimalValue): string {
  return new Decimal(value).toFixed(2, Decimal.ROUND_HALF_UP);
}

export interface LineInput {
  quantity: DecimalValue;
  price: DecimalValue;
  /** Percentage 0..100; null or absent: no discount. */
  discountPercentage?: DecimalValue | null;
  /** Percentage of the line's tax; null: the line has no tax. */
  taxRate?: DecimalValue | null;
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

export function lineTotals(line: LineInput): LineTotals {
  const subtotal = round2(new Decimal(line.quantity).times(line.price));
  const percentage = new Decimal(line.discountPercentage ?? 0);
  const discount = round2(subtotal.times(percentage).dividedBy(100));
  const net = subtotal.minus(discount);
  const hasTax = line.taxRate !== null && line.taxRate !== undefined;
  const taxAmount = hasTax ? round2(net.times(line.taxRate as DecimalValue).dividedBy(100)) : new Decimal(0);
  return {
    subtotal: money(subtotal),
    discount: money(discount),
    net: money(net),
    taxRate: hasTax ? new Decimal(line.taxRate as DecimalValue).toString() : null,
    taxAmount: money(taxAmount),
    taxIncluded: false,
    total: money(net.plus(taxAmount)),
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

function sum(values: string[]): Decimal {
  return values.reduce((acc, value) => acc.plus(value), new Decimal(0));
}

/** The invoice's totals of a new draft: sums of its lines, nothing paid yet. */
export function invoiceTotals(lines: readonly LineTotals[]): InvoiceTotals {
  const grandTotal = money(sum(lines.map((line) => line.total)));
  return {
    subtotal: money(sum(lines.map((line) => line.subtotal))),
    discount: money(sum(lines.map((line) => line.discount))),
    globalDiscountAmount: '0.00',
    vatBase: money(sum(lines.filter((line) => line.taxRate !== null).map((line) => line.net))),
    tax: money(sum(lines.map((line) => line.taxAmount))),
    grandTotal,
    paidAmount: '0.00',
    remainingAmount: grandTotal,
  };
}

/** Number of decimal places a JSON number was written with (1.005 -> 3, 1e-7 -> 7). */
export function decimalPlacesOf(value: number): number {
  return new Decimal(value).decimalPlaces();
}
