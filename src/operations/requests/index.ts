// What support asks of the request log (src/request-log/): `requests list` (a company's requests,
// filtered), `requests show` (one request by the X-Request-Id the partner received: what it
// created or replayed, the events it caused and what became of their deliveries), `keys usage`
// (a key's requests and refusals per day) and `usage` (a company's or a key's usage over 24 hours,
// 7 or 30 days: the console's /usage page). Usage is read from the hourly rollups the log's writer
// keeps (src/request-log/usage.ts), never from a scan of the log. Every query is bound to one company: `list` requires
// it, `show` names it, and whatever `show` links to is read within the request's company only.
import { and, asc, desc, eq, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm';
import { API_PREFIX } from '../../app-constants.js';
import type { ActingContext } from '../../context.js';
import { queryRows } from '../../db/client.js';
import {
  apiKeys,
  companies,
  idempotencyKeys,
  requestLog,
  requestUsage,
  requestUsageCodes,
  webhookAttempts,
  webhookDeliveries,
  webhookEvents,
} from '../../db/schema.js';
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
import {
  atOrAfter,
  companyArg,
  idArg,
  type Moment,
  optionalId,
  optionalMoment,
  type RawArgs,
} from '../arguments.js';
import { requireCompany } from '../companies.js';
import { define, limitArg } from '../define.js';
import { ArgumentError, OperationError } from '../errors.js';

const MINUTE_MS = 60_000;

// ---- the shape of a request, as the operator sees it ----

export interface LoggedRequest {
  request_id: string;
  at: string;
  company_id: number;
  api_key_id: number;
  method: string;
  /** As partners read it: `/customers/{id}`. */
  route: string;
  status: number;
  error_code: string | null;
  idempotency_key: string | null;
  replayed: boolean;
  duration_ms: number;
  client_ip: string;
  /** The W3C trace id of the request (the caller's, when it sent `traceparent`); null with tracing off. */
  trace_id: string | null;
}

type Row = typeof requestLog.$inferSelect;

/** `/api/v1/partner/customers/:id` -> `/customers/{id}`. */
function shownRoute(template: string): string {
  const path = template.startsWith(API_PREFIX) ? template.slice(API_PREFIX.length) : template;
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** What an operator may type (`/customers/{id}`, `customers/:id`, the full path) -> the stored template. */
export function routeTemplate(route: string): string {
  let path = route.trim().replace(/\{([A-Za-z_]+)\}/g, ':$1');
  if (!path.startsWith('/')) path = `/${path}`;
  return path.startsWith(`${API_PREFIX}/`) ? path : `${API_PREFIX}${path}`;
}

function shown(row: Row, timeZone: string): LoggedRequest {
  return {
    request_id: row.requestId,
    at: formatTimestamp(row.at, timeZone),
    company_id: row.companyId,
    api_key_id: row.apiKeyId,
    method: row.method,
    route: shownRoute(row.route),
    status: row.status,
    error_code: row.errorCode,
    idempotency_key: row.idempotencyKey,
    replayed: row.replayed,
    duration_ms: Math.round(row.durationUs / 100) / 10,
    client_ip: row.clientIp,
    trace_id: row.traceId,
  };
}

// ---- requests list ----

/** `429` (one status) or `4xx` (a class). */
export type StatusFilter = { exact: number } | { class: number };

export interface RequestQuery {
  companyId: number;
  apiKeyId?: number;
  status?: StatusFilter;
  since?: Moment;
  /** Only requests that arrived before this moment (the console's next page: the last row's `at`). */
  until?: Moment;
  /** The stored template (routeTemplate). */
  route?: string;
  /** The error envelope's code, e.g. `validation_failed`. */
  errorCode?: string;
  limit: number;
}

/** The newest `limit` requests of the company that match, newest first. */
export async function listRequests(context: ActingContext, query: RequestQuery): Promise<LoggedRequest[]> {
  const { db, timeZone } = context;
  const conditions: SQL[] = [eq(requestLog.companyId, query.companyId)];
  if (query.apiKeyId !== undefined) conditions.push(eq(requestLog.apiKeyId, query.apiKeyId));
  if (query.status && 'exact' in query.status) conditions.push(eq(requestLog.status, query.status.exact));
  if (query.status && 'class' in query.status) {
    const from = query.status.class * 100;
    conditions.push(gte(requestLog.status, from), lte(requestLog.status, from + 99));
  }
  if (query.since !== undefined) conditions.push(atOrAfter(requestLog.at, query.since, timeZone));
  if (query.until !== undefined) {
    const until = query.until;
    conditions.push(
      'at' in until
        ? lt(requestLog.at, until.at)
        : sql`${requestLog.at} < (${until.date}::date::timestamp at time zone ${timeZone})`,
    );
  }
  if (query.route !== undefined) conditions.push(eq(requestLog.route, query.route));
  if (query.errorCode !== undefined) conditions.push(eq(requestLog.errorCode, query.errorCode));
  const rows = await db
    .select()
    .from(requestLog)
    .where(and(...conditions))
    .orderBy(desc(requestLog.at))
    .limit(query.limit);
  return rows.map((row) => shown(row, timeZone));
}

// ---- requests show ----

export interface RequestRecordShown {
  idempotency_key: string;
  /** `completed`, or `in_flight` while the write runs. */
  state: string;
  response_status: number | null;
  /** What the write created or changed: `{type: "customer", id: 42}`, when it answered one. */
  resource: { type: string; id: number } | null;
  /** The request that ran the write (this one, or the one this request replayed). */
  created_by_request_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface CausedEvent {
  event_id: string;
  type: string;
  created_at: string;
  deliveries: {
    delivery_id: number;
    endpoint_id: number;
    status: string;
    attempts: {
      attempt: number;
      succeeded: boolean;
      status_code: number | null;
      latency_ms: number;
      error: string | null;
      at: string;
    }[];
  }[];
}

export interface ShownRequest {
  request: LoggedRequest & { company_name: string | null };
  record: RequestRecordShown | null;
  events: CausedEvent[];
}

const RESOURCE_OF_ROUTE: Record<string, string> = {
  customers: 'customer',
  products: 'product',
  invoices: 'invoice',
};

/** `customer` for `/api/v1/partner/customers/:id`. */
function resourceTypeOf(template: string): string | null {
  const segment = template.slice(API_PREFIX.length).split('/')[1] ?? '';
  return RESOURCE_OF_ROUTE[segment] ?? null;
}

/** The resource a stored answer carries (`{"data": {"id": 42, ...}}`). */
function resourceIn(body: string | null, type: string | null): { type: string; id: number } | null {
  if (!body || !type) return null;
  try {
    const id = (JSON.parse(body) as { data?: { id?: unknown } }).data?.id;
    return typeof id === 'number' ? { type, id } : null;
  } catch {
    return null;
  }
}

/**
 * The idempotency record of a write (kept 24 hours): what it answered, and which request ran it.
 * A record made after the request (its key reused once it expired) is not this request's.
 */
async function recordOf(context: ActingContext, row: Row): Promise<RequestRecordShown | null> {
  if (!row.idempotencyKey || (row.method !== 'POST' && row.method !== 'PUT')) return null;
  const { db, timeZone } = context;
  const [record] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.apiKeyId, row.apiKeyId),
        eq(idempotencyKeys.companyId, row.companyId),
        eq(idempotencyKeys.key, row.idempotencyKey),
      ),
    );
  const end = row.at.getTime() + row.durationUs / 1000;
  if (!record || record.createdAt.getTime() > end + MINUTE_MS) return null;
  // The request that ran the write: this one, unless it replayed an earlier one's answer.
  const [creator] = row.replayed
    ? await db
        .select({ requestId: requestLog.requestId })
        .from(requestLog)
        .where(
          and(
            eq(requestLog.apiKeyId, row.apiKeyId),
            eq(requestLog.companyId, row.companyId),
            eq(requestLog.idempotencyKey, row.idempotencyKey),
            eq(requestLog.replayed, false),
            lte(requestLog.at, row.at),
          ),
        )
        .orderBy(desc(requestLog.at))
        .limit(1)
    : [{ requestId: row.status === record.responseStatus ? row.requestId : null }];
  return {
    idempotency_key: record.key,
    state: record.state,
    response_status: record.responseStatus,
    resource: resourceIn(record.responseBody, resourceTypeOf(row.route)),
    created_by_request_id: creator?.requestId ?? null,
    created_at: formatTimestamp(record.createdAt, timeZone),
    expires_at: formatTimestamp(record.expiresAt, timeZone),
  };
}

/**
 * The events a request caused: those of its company recorded with its id (`webhook_events.request_id`,
 * set from the API key actor in the write's own transaction, the same as the payload's
 * `cause.request_id`; indexed).
 */
async function eventsCausedBy(
  context: ActingContext,
  companyId: number,
  requestId: string,
): Promise<CausedEvent[]> {
  const { db, timeZone } = context;
  const events = await db
    .select({
      id: webhookEvents.id,
      public_id: webhookEvents.publicId,
      type: webhookEvents.type,
      created_at: webhookEvents.createdAt,
    })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.requestId, requestId), eq(webhookEvents.companyId, companyId)))
    .orderBy(asc(webhookEvents.id));
  if (events.length === 0) return [];
  const eventIds = events.map((event) => event.id);
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.eventId, eventIds), eq(webhookDeliveries.companyId, companyId)))
    .orderBy(asc(webhookDeliveries.id));
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .select()
          .from(webhookAttempts)
          .where(
            inArray(
              webhookAttempts.deliveryId,
              deliveries.map((delivery) => delivery.id),
            ),
          )
          .orderBy(asc(webhookAttempts.id));
  return events.map((event) => ({
    event_id: event.public_id,
    type: event.type,
    created_at: formatTimestamp(event.created_at, timeZone),
    deliveries: deliveries
      .filter((delivery) => delivery.eventId === event.id)
      .map((delivery) => ({
        delivery_id: delivery.id,
        endpoint_id: delivery.endpointId,
        status: delivery.status,
        attempts: attempts
          .filter((attempt) => attempt.deliveryId === delivery.id)
          .map((attempt) => ({
            attempt: attempt.attempt,
            succeeded: attempt.succeeded,
            status_code: attempt.statusCode,
            latency_ms: attempt.latencyMs,
            error: attempt.error,
            at: formatTimestamp(attempt.createdAt, timeZone),
          })),
      })),
  }));
}

/** One request by its id, with what it created or replayed and the events it caused. */
/** A W3C trace id: `requests show` finds the first request of that trace (tracing on). */
const TRACE_ID = /^[0-9a-f]{32}$/;

export async function showRequest(context: ActingContext, requestId: string): Promise<ShownRequest> {
  const { db, timeZone } = context;
  const [found] = await db
    .select({ row: requestLog, companyName: companies.name })
    .from(requestLog)
    .leftJoin(companies, eq(companies.id, requestLog.companyId))
    .where(TRACE_ID.test(requestId) ? eq(requestLog.traceId, requestId) : eq(requestLog.requestId, requestId))
    .orderBy(asc(requestLog.at))
    .limit(1);
  if (!found) {
    throw new OperationError({ key: 'refused.request_not_logged', params: { id: requestId } });
  }
  const { row } = found;
  // A replay caused nothing itself: the events are those of the request that ran the write
  // (known from its record); any other request's events are read beside its record.
  const [record, ownEvents] = await Promise.all([
    recordOf(context, row),
    row.replayed ? null : eventsCausedBy(context, row.companyId, row.requestId),
  ]);
  const causeId = row.replayed ? record?.created_by_request_id : null;
  const events = ownEvents ?? (causeId ? await eventsCausedBy(context, row.companyId, causeId) : []);
  return { request: { ...shown(row, timeZone), company_name: found.companyName }, record, events };
}

// ---- keys usage ----

export interface KeyUsageDay {
  /** YYYY-MM-DD in the context's time zone. */
  day: string;
  requests: number;
  /** Answered 4xx (429 included). */
  refused: number;
  /** Answered 429. */
  rate_limited: number;
}

export interface ApiKeyUsage {
  key_id: number;
  company_id: number;
  days: KeyUsageDay[];
  totals: Omit<KeyUsageDay, 'day'>;
}

export const USAGE_DAYS = 30;

/** A key's requests, refusals and 429s per day, over the last 30 days (today included), oldest first (from the rollups). */
export async function keyUsage(context: ActingContext, keyId: number): Promise<ApiKeyUsage> {
  const { db, timeZone } = context;
  const [key] = await db.select({ companyId: apiKeys.companyId }).from(apiKeys).where(eq(apiKeys.id, keyId));
  if (!key) throw new OperationError({ key: 'refused.key_missing', params: { id: keyId } });
  // From the hourly rollups (never the log): an hour belongs to the day it starts in, in the
  // context's time zone (exact for every zone a whole number of hours from UTC, as Maputo's).
  const u = requestUsage;
  const rows = await queryRows<KeyUsageDay>(
    db,
    sql`with today as (select (now() at time zone ${timeZone})::date as day),
      days as (select (today.day - n)::date as day from today, generate_series(0, ${USAGE_DAYS - 1}::integer) as n),
      counts as (
        select (${u.hour} at time zone ${timeZone})::date as day, sum(${u.requests}) as requests,
          sum(${u.status4xx}) as refused, sum(${u.rateLimited}) as rate_limited
        from ${u}, today
        where ${u.companyId} = ${key.companyId} and ${u.apiKeyId} = ${keyId}
          and ${u.hour} >= ((today.day - ${USAGE_DAYS - 1}::integer)::timestamp at time zone ${timeZone})
        group by 1)
      select to_char(days.day, 'YYYY-MM-DD') as day, coalesce(counts.requests, 0)::integer as requests,
        coalesce(counts.refused, 0)::integer as refused, coalesce(counts.rate_limited, 0)::integer as rate_limited
      from days left join counts on counts.day = days.day
      order by days.day`,
  );
  const days = rows.map((row) => ({
    day: row.day,
    requests: Number(row.requests),
    refused: Number(row.refused),
    rate_limited: Number(row.rate_limited),
  }));
  const sum = (field: 'requests' | 'refused' | 'rate_limited') =>
    days.reduce((total, day) => total + day[field], 0);
  return {
    key_id: keyId,
    company_id: key.companyId,
    days,
    totals: { requests: sum('requests'), refused: sum('refused'), rate_limited: sum('rate_limited') },
  };
}

// ---- usage (the console's /usage page): from the hourly rollups only, never the log ----

export const USAGE_WINDOWS = {
  '24h': { hours: 24, stepHours: 1 },
  '7d': { hours: 7 * 24, stepHours: 6 },
  '30d': { hours: 30 * 24, stepHours: 24 },
} as const;
export type UsageWindow = keyof typeof USAGE_WINDOWS;

/** Counters as shown: requests by status class, 429s, writes (POST, PUT), deprecated uses. */
export interface UsageNumbers {
  requests: number;
  status_2xx: number;
  status_3xx: number;
  status_4xx: number;
  status_5xx: number;
  rate_limited: number;
  writes: number;
  deprecated: number;
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

interface UsageRowRead {
  hour: string;
  requests: number;
  status_2xx: number;
  status_3xx: number;
  status_4xx: number;
  status_5xx: number;
  rate_limited: number;
  writes: number;
  deprecated: number;
  latency: number[];
}

const COUNT_FIELDS: [keyof UsageCounts, keyof UsageNumbers][] = [
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
  for (const [field, column] of COUNT_FIELDS) into.counts[field] += Number(row[column as keyof UsageRowRead]);
  row.latency.forEach((count, bucket) => {
    into.latency[bucket] = (into.latency[bucket] as number) + Number(count);
  });
}

function numbers(from: Accumulated): UsageNumbers {
  const shown = {} as Record<string, number>;
  for (const [field, column] of COUNT_FIELDS) shown[column] = from.counts[field];
  return {
    ...(shown as unknown as Omit<UsageNumbers, 'p50_ms' | 'p99_ms'>),
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
function windowArg(raw: RawArgs): UsageWindow {
  const value = raw.window ?? '24h';
  if (typeof value === 'string' && Object.hasOwn(USAGE_WINDOWS, value)) return value as UsageWindow;
  throw new ArgumentError({ key: 'arg.window', params: { value: String(value) } });
}

function errorCodeArg(raw: RawArgs): string | undefined {
  const value = raw.error;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(value.trim())) {
    throw new ArgumentError({ key: 'arg.error_code' });
  }
  return value.trim();
}

/** The key, if named, must be one of the company's (another company's key answers like a missing one). */
async function requireKeyOf(
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

// ---- the operations (merged into src/operations/index.ts) ----

/** `--status 429` (one status) or `--status 4xx` (a class). */
function statusArg(raw: RawArgs): StatusFilter | undefined {
  const value = raw.status;
  if (value === undefined) return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text === 'string' && /^[1-5][0-9][0-9]$/.test(text)) return { exact: Number(text) };
  if (typeof text === 'string' && /^[1-5]xx$/i.test(text)) return { class: Number(text[0]) };
  throw new ArgumentError({ key: 'arg.status', params: { value: String(text) } });
}

function routeArg(raw: RawArgs): string | undefined {
  const value = raw.route;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\/?[A-Za-z0-9_/{}:-]{1,200}$/.test(value.trim())) {
    throw new ArgumentError({ key: 'arg.route' });
  }
  return routeTemplate(value);
}

/** A request id (`req_…`), or a W3C trace id (32 hex digits) that the partner's traceparent named. */
function requestIdArg(raw: RawArgs): string {
  const value = raw.request_id;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ArgumentError({ key: 'arg.required', params: { name: { key: 'arg.label.request_id' } } });
  }
  const text = value.trim();
  if (!/^req_[0-9a-f]{24}$/.test(text) && !TRACE_ID.test(text)) {
    throw new ArgumentError({ key: 'arg.request_id' });
  }
  return text;
}

export const requestOperations = {
  'requests.list': define({
    reads: true,
    parse: (raw) => ({
      companyId: companyArg(raw),
      apiKeyId: optionalId(raw, 'key', 'key'),
      status: statusArg(raw),
      since: optionalMoment(raw, 'since'),
      until: optionalMoment(raw, 'until'),
      route: routeArg(raw),
      errorCode: errorCodeArg(raw),
      limit: limitArg(raw, 50),
    }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      return { company_id: args.companyId, requests: await listRequests(context, args) };
    },
  }),
  'requests.show': define({
    reads: true,
    parse: (raw) => ({ requestId: requestIdArg(raw) }),
    run: (context, args) => showRequest(context, args.requestId),
  }),
  'keys.usage': define({
    reads: true,
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.key_id' }) }),
    run: (context, args) => keyUsage(context, args.id),
  }),
  usage: define({
    reads: true,
    parse: (raw) => ({
      companyId: companyArg(raw),
      apiKeyId: optionalId(raw, 'key', 'key'),
      window: windowArg(raw),
    }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      await requireKeyOf(context, args.companyId, args.apiKeyId);
      return usageReport(context, args);
    },
  }),
};
