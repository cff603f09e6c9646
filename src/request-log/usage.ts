// The usage rollups' arithmetic (drizzle/0017_request_usage_rollups.sql): what one batch of the
// request log adds to the rows of `request_usage` (per company, API key and hour) and
// `request_usage_codes` (per error code and deprecated item), and the percentiles read back from
// the latency histogram. Per hour, not per minute: 30 days of a key are 720 rows (a minute's
// 43,200 would make the 30-day chart read 60 times more rows for points no chart can show), and
// the shortest window, 24 hours, still draws 24 points.

/** What a rollup reads of a request record (writer.ts's RequestRecord). */
export interface RolledRecord {
  /** Epoch milliseconds. */
  at: number;
  companyId: number;
  apiKeyId: number;
  method: string;
  status: number;
  errorCode: string | null;
  durationUs: number;
  deprecatedUse?: string[] | null;
}

export const HOUR_MS = 60 * 60 * 1000;

/**
 * Upper bounds (exclusive) of the latency buckets, in microseconds; one more bucket holds the
 * rest. A duration d falls in bucket i, the number of bounds <= d (PostgreSQL's `width_bucket`).
 * About 1.5x apart: a percentile is known within its bucket, e.g. between 20 and 30 ms.
 */
export const LATENCY_BOUNDS_US = [
  500, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10_000, 15_000, 20_000, 30_000, 40_000, 50_000, 75_000,
  100_000, 150_000, 200_000, 300_000, 500_000, 750_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000,
  30_000_000, 60_000_000,
] as const;
export const LATENCY_BUCKETS = LATENCY_BOUNDS_US.length + 1;

export function latencyBucket(durationUs: number): number {
  let low = 0;
  let high: number = LATENCY_BOUNDS_US.length;
  // The first bound greater than the duration.
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((LATENCY_BOUNDS_US[middle] as number) <= durationUs) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The counters of one rollup row (and of any sum of them). */
export interface UsageCounts {
  requests: number;
  status2xx: number;
  status3xx: number;
  status4xx: number;
  status5xx: number;
  rateLimited: number;
  writes: number;
  deprecated: number;
}

export interface UsageRow extends UsageCounts {
  /** The hour, epoch milliseconds. */
  hour: number;
  companyId: number;
  apiKeyId: number;
  latency: number[];
}

export interface UsageCodeRow {
  hour: number;
  companyId: number;
  apiKeyId: number;
  kind: 'error' | 'deprecated';
  code: string;
  count: number;
}

export const emptyCounts = (): UsageCounts => ({
  requests: 0,
  status2xx: 0,
  status3xx: 0,
  status4xx: 0,
  status5xx: 0,
  rateLimited: 0,
  writes: 0,
  deprecated: 0,
});

const CLASS_FIELD = { 2: 'status2xx', 3: 'status3xx', 4: 'status4xx', 5: 'status5xx' } as const;

/**
 * What a batch adds to the rollups, sorted by their keys: every instance then locks the rows it
 * upserts in the same order, so two batches written at once never deadlock.
 */
export function rollUp(records: readonly RolledRecord[]): { rows: UsageRow[]; codes: UsageCodeRow[] } {
  const rows = new Map<string, UsageRow>();
  const codes = new Map<string, UsageCodeRow>();
  const addCode = (record: RolledRecord, hour: number, kind: 'error' | 'deprecated', code: string) => {
    const id = `${record.companyId}/${record.apiKeyId}/${hour}/${kind}/${code}`;
    const row = codes.get(id);
    if (row) row.count++;
    else
      codes.set(id, { hour, companyId: record.companyId, apiKeyId: record.apiKeyId, kind, code, count: 1 });
  };
  for (const record of records) {
    const hour = Math.floor(record.at / HOUR_MS) * HOUR_MS;
    const id = `${record.companyId}/${record.apiKeyId}/${hour}`;
    let row = rows.get(id);
    if (!row) {
      row = {
        hour,
        companyId: record.companyId,
        apiKeyId: record.apiKeyId,
        ...emptyCounts(),
        latency: new Array<number>(LATENCY_BUCKETS).fill(0),
      };
      rows.set(id, row);
    }
    row.requests++;
    const field = CLASS_FIELD[Math.floor(record.status / 100) as 2 | 3 | 4 | 5];
    if (field) row[field]++;
    if (record.status === 429) row.rateLimited++;
    if (record.method === 'POST' || record.method === 'PUT') row.writes++;
    (row.latency[latencyBucket(record.durationUs)] as number)++;
    if (record.errorCode) addCode(record, hour, 'error', record.errorCode);
    if (record.deprecatedUse && record.deprecatedUse.length > 0) {
      row.deprecated++;
      for (const item of record.deprecatedUse) addCode(record, hour, 'deprecated', item);
    }
  }
  const order = (a: { companyId: number; apiKeyId: number; hour: number }, b: typeof a) =>
    a.companyId - b.companyId || a.apiKeyId - b.apiKeyId || a.hour - b.hour;
  return {
    rows: [...rows.values()].sort(order),
    codes: [...codes.values()].sort(
      (a, b) =>
        order(a, b) || a.kind.localeCompare(b.kind) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
    ),
  };
}

/** A percentile as the histogram knows it: within [low, high) milliseconds (high null: above the last bound). */
export interface Percentile {
  /** The bucket's upper bound in ms (what a chart draws), or its lower bound for the last bucket. */
  ms: number | null;
  low_ms: number;
  high_ms: number | null;
}

/**
 * The q-quantile (0 < q <= 1) of the durations counted in `latency`: the bucket holding the
 * ceil(q * n)-th smallest duration, which is where PostgreSQL's `percentile_disc(q)` falls.
 */
export function percentile(latency: readonly number[], q: number): Percentile | null {
  const total = latency.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let bucket = 0; bucket < latency.length; bucket++) {
    seen += latency[bucket] as number;
    if (seen >= rank) {
      const low = bucket === 0 ? 0 : (LATENCY_BOUNDS_US[bucket - 1] as number) / 1000;
      const high = bucket < LATENCY_BOUNDS_US.length ? (LATENCY_BOUNDS_US[bucket] as number) / 1000 : null;
      return { ms: high ?? low, low_ms: low, high_ms: high };
    }
  }
  return null;
}
