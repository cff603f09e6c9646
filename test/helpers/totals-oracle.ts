// An independent oracle of decisions.md "Invoices: totals of a draft", in whole numbers only
// (bigint): money in cents, quantities, discount percentages and tax rates times 10^4. Nothing
// here shares code with src/invoices/totals.ts.

export interface OracleLine {
  /** quantity x 10^4 */
  quantity: bigint;
  /** price in cents */
  price: bigint;
  /** discount percentage x 10^4; null: none */
  discount: bigint | null;
  /** tax rate percentage x 10^4; null: the line has no tax */
  taxRate: bigint | null;
}

export interface OracleAmounts {
  subtotal: bigint;
  discount: bigint;
  net: bigint;
  tax: bigint;
  total: bigint;
  taxed: boolean;
}

/** value / by, rounded half away from zero (both non-negative). */
export const divideHalfUp = (value: bigint, by: bigint): bigint => (value * 2n + by) / (by * 2n);

/** Cents as the API's decimal text: 12345n -> "123.45". */
export const cents = (value: bigint): string =>
  `${value / 100n}.${(value % 100n).toString().padStart(2, '0')}`;

/** Whole units with `places` decimals as a JSON number: (123456n, 4) -> 12.3456. */
export const scaled = (units: bigint, places: number): number =>
  Number(
    `${units / 10n ** BigInt(places)}.${(units % 10n ** BigInt(places)).toString().padStart(places, '0')}`,
  );

export function oracleLine(line: OracleLine): OracleAmounts {
  const subtotal = divideHalfUp(line.quantity * line.price, 10n ** 4n);
  const discount = divideHalfUp(subtotal * (line.discount ?? 0n), 100n * 10n ** 4n);
  const net = subtotal - discount;
  const tax = line.taxRate === null ? 0n : divideHalfUp(net * line.taxRate, 100n * 10n ** 4n);
  return { subtotal, discount, net, tax, total: net + tax, taxed: line.taxRate !== null };
}

/** The invoice's totals as the API shows them (decimal text). */
export function oracleInvoice(lines: readonly OracleAmounts[]) {
  const sum = (pick: (line: OracleAmounts) => bigint) =>
    cents(lines.reduce((acc, line) => acc + pick(line), 0n));
  return {
    subtotal: sum((line) => line.subtotal),
    discount: sum((line) => line.discount),
    global_discount_amount: '0.00',
    vat_base: sum((line) => (line.taxed ? line.net : 0n)),
    tax: sum((line) => line.tax),
    grand_total: sum((line) => line.total),
    paid_amount: '0.00',
    remaining_amount: sum((line) => line.total),
  };
}
