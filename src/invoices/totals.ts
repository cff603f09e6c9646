// The arithmetic of a draft's totals, exactly as decisions.md states it ("Invoices: totals of a
// draft"): exact decimals, each step rounded half away from zero to 2 places. Pure functions;
// parsing, limits and formats of money are src/money.ts.
import { Decimal, type DecimalValue, money, round2 } from '../money.js';

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
