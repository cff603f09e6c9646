// `usage`: a company's or one key's usage over 24 hours, 7 or 30 days (the console's /usage page):
// totals, latency percentiles and histogram, the most frequent error codes, the deprecated items
// used and a series for charts. Read from the hourly rollups only (src/request-log/usage.ts), never
// from the log.
import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import { queryRows } from '../../db/client.js';
import { apiKeys, requestUsage, requestUsageCodes } from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';
import {
  emptyCounts,
  HOUR_MS,
  LATENCY_BOUNDS_US,
  LATENCY_BUCKETS,
  type Percentile,
  percentile,
  type UsageCounts,
} from '../../request-log/usage.js';
import type { RawArgs } from '../arguments.js';
import { ArgumentError, OperationError } from '../errors.js';

export const USAGE_WINDOWS = {
  '24h': { hours: 24, stepHours: 1 },
  '7d': { hours: 7 * 24, stepHours: 6 },
  '30d': { hours: 30 * 24, stepHours: 24 },
} as const;
export type UsageWindow = keyof typeof USAGE_WINDOWS;

/**
 * The counters as shown, and as the rollups' columns are read: requests by status class, 429s,
 * writes (POST, PUT), deprecated uses.
 */
interface ShownCounts {
  requests: number;
  status_2xx: number;
  status_3xx: number;
  status_4xx: number;
  status_5xx: number;
  rate_limited: number;
  writes: number;
  deprecated: number;
}

export interface UsageNumbers extends ShownCounts {
  /** The bucket's upper bound holding the median and the 99th percentile (ms); null: no request. */
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface UsagePoint extends UsageNumbers {
  /** The start of the point's interval (`step` long). */
  from: string;
}

export interface UsageReport {
  company_id: number;
  /** null: every key of the company. */
  api_key_id: number | null;
  window: UsageWindow;
  /** The window: from the start of the hour `window` ago to the end of the current hour. */
  from: string;
  to: string;
  /** Each point of `series`: `1h` (24h), `6h` (7d), `1d` (30d). */
  step: string;
  totals: UsageNumbers & {
    /** Where the percentiles lie: [low_ms, high_ms) of their bucket (high null: above 60 s). */
    p50: Percentile | null;
    p99: Percentile | null;
  };
  /** The window's latency histogram: requests per bucket, `below_ms` its upper bound (null: the rest). */
  latency: { below_ms: number | null; requests: number }[];
  /** The ten most frequent error codes, most frequent first. */
  error_codes: { code: string; requests: number }[];
  /** The deprecated items used, most used first. */
  deprecated_uses: { item: string; requests: number }[];
  /** Oldest first, every interval present (zeros where nothing came). */
  series: UsagePoint[];
}

interface UsageRowRead extends ShownCounts {
  hour: string;
  latency: number[];
}

const COUNT_FIELDS: [keyof UsageCounts, keyof ShownCounts][] = [
  ['requests', 'requests'],
  ['status2xx', 'status_2xx'],
  ['status3xx', 'status_3xx'],
  ['status4xx', 'status_4xx'],
  ['status5xx', 'status_5xx'],
  ['rateLimited', 'rate_limited'],
  ['writes', 'writes'],
  ['deprecated', 'deprecated'],
];

interface Accumulated {
  counts: UsageCounts;
  latency: number[];
}

const accumulator = (): Accumulated => ({
  counts: emptyCounts(),
  latency: new Array(LATENCY_BUCKETS).fill(0),
});

function addRow(into: Accumulated, row: UsageRowRead): void {
  for (const [field, column] of COUNT_FIELDS) into.counts[field] += Number(row[column]);
  row.latency.forEach((count, bucket) => {
    into.latency[bucket] = (into.latency[bucket] as number) + Number(count);
  });
}

function numbers(from: Accumulated): UsageNumbers {
  const shown = {} as ShownCounts;
  for (const [field, column] of COUNT_FIELDS) shown[column] = from.counts[field];
  return {
    ...shown,
    p50_ms: percentile(from.latency, 0.5)?.ms ?? null,
    p99_ms: percentile(from.latency, 0.99)?.ms ?? null,
  };
}

export interface UsageQuery {
  companyId: number;
  apiKeyId?: number;
  window: UsageWindow;
  /** The window ends with this moment's hour (default: now). The bench reads its data set's end. */
  end?: Date;
}

/** A company's (or one of its keys') usage over a window, with its series for charts. */
export async function usageReport(context: ActingContext, query: UsageQuery): Promise<UsageReport> {
  const { db, timeZone } = context;
  const { hours, stepHours } = USAGE_WINDOWS[query.window];
  const endHour = Math.floor((query.end ?? new Date()).getTime() / HOUR_MS) * HOUR_MS;
  const start = endHour - (hours - 1) * HOUR_MS;
  const to = endHour + HOUR_MS;
  const u = requestUsage;
  const c = requestUsageCodes;
  const whereUsage = and(
    eq(u.companyId, query.companyId),
    query.apiKeyId === undefined ? undefined : eq(u.apiKeyId, query.apiKeyId),
    gte(u.hour, new Date(start)),
    lt(u.hour, new Date(to)),
  );
  const whereCodes = and(
    eq(c.companyId, query.companyId),
    query.apiKeyId === undefined ? undefined : eq(c.apiKeyId, query.apiKeyId),
    gte(c.hour, new Date(start)),
    lt(c.hour, new Date(to)),
  );
  // The window's rows as stored (one per key and hour: at most 720 a key), summed here.
  const [rows, codes] = await Promise.all([
    queryRows<UsageRowRead>(
      db,
      sql`select to_char(${u.hour} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as hour,
          ${u.requests} as requests, ${u.status2xx} as status_2xx, ${u.status3xx} as status_3xx,
          ${u.status4xx} as status_4xx, ${u.status5xx} as status_5xx, ${u.rateLimited} as rate_limited,
          ${u.writes} as writes, ${u.deprecated} as deprecated, ${u.latency} as latency
        from ${u} where ${whereUsage}`,
    ),
    queryRows<{ kind: string; code: string; requests: number }>(
      db,
      sql`select ${c.kind} as kind, ${c.code} as code, sum(${c.count})::integer as requests
        from ${c} where ${whereCodes} group by 1, 2 order by 3 desc, 2`,
    ),
  ]);
  const total = accumulator();
  const points = Array.from({ length: hours / stepHours }, accumulator);
  for (const row of rows) {
    addRow(total, row);
    const index = Math.floor((Date.parse(row.hour) - start) / (stepHours * HOUR_MS));
    addRow(points[index] as Accumulated, row);
  }
  const totals = numbers(total);
  return {
    company_id: query.companyId,
    api_key_id: query.apiKeyId ?? null,
    window: query.window,
    from: formatTimestamp(new Date(start), timeZone),
    to: formatTimestamp(new Date(to), timeZone),
    step: stepHours === 24 ? '1d' : `${stepHours}h`,
    totals: { ...totals, p50: percentile(total.latency, 0.5), p99: percentile(total.latency, 0.99) },
    latency: total.latency.map((requests, bucket) => ({
      below_ms: bucket < LATENCY_BOUNDS_US.length ? (LATENCY_BOUNDS_US[bucket] as number) / 1000 : null,
      requests,
    })),
    error_codes: codes
      .filter((row) => row.kind === 'error')
      .slice(0, 10)
      .map((row) => ({ code: row.code, requests: Number(row.requests) })),
    deprecated_uses: codes
      .filter((row) => row.kind === 'deprecated')
      .map((row) => ({ item: row.code, requests: Number(row.requests) })),
    series: points.map((point, index) => ({
      from: formatTimestamp(new Date(start + index * stepHours * HOUR_MS), timeZone),
      ...numbers(point),
    })),
  };
}

/** `--window 24h|7d|30d` (default 24h). */
export function windowArg(raw: RawArgs): UsageWindow {
  const value = raw.window ?? '24h';
  if (typeof value === 'string' && Object.hasOwn(USAGE_WINDOWS, value)) return value as UsageWindow;
  throw new ArgumentError({ key: 'arg.window', params: { value: String(value) } });
}

/** The key, if named, must be one of the company's (another company's key answers like a missing one). */
export async function requireKeyOf(
  context: ActingContext,
  companyId: number,
  keyId: number | undefined,
): Promise<void> {
  if (keyId === undefined) return;
  const [key] = await context.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.companyId, companyId)));
  if (!key) throw new OperationError({ key: 'refused.key_missing', params: { id: keyId } });
}
