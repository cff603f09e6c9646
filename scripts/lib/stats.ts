// Small statistics helpers: the harness quotes medians with min and max, never means.

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile of the values (0 < p <= 100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function min(values: number[]): number {
  return values.length === 0 ? Number.NaN : Math.min(...values);
}

export function max(values: number[]): number {
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

export function summary(values: number[]): { median: number; min: number; max: number } {
  return { median: median(values), min: min(values), max: max(values) };
}
