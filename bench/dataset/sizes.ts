// How many rows of each kind a data set of N invoices has (the main company's counts; the noise
// company gets 1/50 of each, interleaved: every 51st row of a table belongs to it).

/** The data set's size when none is asked for (`--invoices`). */
export const DEFAULT_INVOICES = 1_000_000;

export interface DatasetSizes {
  invoices: number;
  customers: number;
  products: number;
  /** Receipts are derived from paid / partially paid invoices and come out close to this. */
  receiptsTarget: number;
  /** Salaries and supplier payments together. */
  movements: number;
}

export function sizesFor(invoices: number): DatasetSizes {
  return {
    invoices,
    customers: Math.max(50, Math.round(invoices / 5)),
    products: Math.max(50, Math.round(invoices / 10)),
    receiptsTarget: Math.round(invoices * 0.3),
    movements: Math.max(10, Math.round(invoices / 100)),
  };
}

/** Rows of a table holding `main` rows of the main company plus the noise company's share. */
export function interleavedTotal(main: number): number {
  return main + Math.floor(main / 50);
}

/** Every 51st row belongs to the noise company. */
export const NOISE_EVERY = 51;

export function mainCount(total: number): number {
  return total - Math.floor(total / NOISE_EVERY);
}

export function noiseCount(total: number): number {
  return Math.floor(total / NOISE_EVERY);
}
