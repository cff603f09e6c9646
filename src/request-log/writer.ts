// The request log's writer: one record per API request of a known key, written OFF the request's
// path. A response only pushes a small object onto an in-memory buffer; every second (or as soon
// as BATCH_SIZE records wait) one INSERT writes them all (one statement, prepared once, whatever
// the number of rows: the batch is one JSON parameter). The buffer is bounded: while the
// database cannot take the records (down, or slower than the requests) the ones beyond it are
// dropped and counted (`invoicing_request_log_records_total{outcome="dropped"}`), never waited
// for. `close()` (the app's onClose: after the last answer, before the pools close) writes what is
// left, so a graceful stop loses nothing.
//
// Kept RETENTION_DAYS, then deleted by `prune()`: every instance prunes every PRUNE_EVERY_MS, in
// batches of PRUNE_BATCH rows (FOR UPDATE SKIP LOCKED: instances pruning at once share the rows,
// never wait for each other); the usage rollups of the hours before go with them. The clock is
// injectable so that a test can move it.
//
// An operator can switch the log off (REQUEST_LOG=off): nothing new is recorded, and the records
// already written are still pruned when they are RETENTION_DAYS old.
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { fixedStatement, runFixed } from '../db/prepared.js';
import { requestLog, requestUsage, requestUsageCodes } from '../db/schema.js';
import { metrics } from '../metrics/registry.js';
import { HOUR_MS, rollUp } from './usage.js';

export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
const FLUSH_EVERY_MS = 1000;
const BATCH_SIZE = 1000;
/** Records waiting at most: a few seconds of a busy instance's requests. */
const MAX_BUFFERED = 20_000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const PRUNE_BATCH = 5000;
/** A failure is logged at most this often (a database that is down fails every flush). */
const WARN_EVERY_MS = 60_000;

/** One API request, as the log keeps it. */
export interface RequestRecord {
  /** When it arrived (epoch milliseconds). */
  at: number;
  companyId: number;
  apiKeyId: number;
  method: string;
  /** The route's template. */
  route: string;
  status: number;
  errorCode: string | null;
  requestId: string;
  idempotencyKey: string | null;
  replayed: boolean;
  durationUs: number;
  clientIp: string;
  /** The deprecated items it used (src/http/deprecation.ts); null for almost every request. */
  deprecatedUse?: string[] | null;
  /** The request's W3C trace id, with tracing on (src/tracing/). */
  traceId?: string | null;
}

export interface RequestLogWarnings {
  warn(object: object, message: string): void;
}

export interface RequestLogOptions {
  /** Milliseconds since the epoch; Date.now by default. */
  clock?: () => number;
  log?: RequestLogWarnings;
  /** Prune periodically (the server); tests call `prune()` themselves. Default true. */
  prune?: boolean;
  /** Record requests (REQUEST_LOG=on). Default true; false: `record` keeps nothing. */
  recording?: boolean;
}

export interface RequestLog {
  /** Takes a record (sync, O(1)); dropped and counted when the buffer is full or the log closed. */
  record(record: RequestRecord): void;
  /** Writes every record waiting now. Never throws: a failed write is counted as dropped. */
  flush(): Promise<void>;
  /** Deletes the records older than RETENTION_DAYS by the clock; resolves to how many. */
  prune(): Promise<number>;
  /** Stops the timers and writes what is left. */
  close(): Promise<void>;
  /** The log's clock (epoch milliseconds): a record's `at` is read from it. */
  now(): number;
  /** False when the operator switched the log off (REQUEST_LOG=off). */
  readonly recording: boolean;
}

const value = sql.placeholder;
const u = requestUsage;
const c = requestUsageCodes;
// One statement writes the batch's rows and what they add to the usage rollups
// (src/request-log/usage.ts): the rows and their rollups are committed together or not at all.
// The rollups are upserts that add, so instances writing the same hour at once each add their own
// (rows upserted in key order: every instance locks them in one order, never a deadlock). The batch travels as one
// JSON text (JSON.stringify is native: half the CPU of a parameter array per column) and is read
// back into rows by the database; `at` in epoch milliseconds.
const INSERT = fixedStatement(
  sql`with logged as (
      insert into ${requestLog} (at, company_id, api_key_id, method, route, status, error_code,
        request_id, idempotency_key, replayed, duration_us, client_ip, deprecated_use, trace_id)
      select to_timestamp(r."at" / 1000.0), r."companyId", r."apiKeyId", r."method", r."route", r."status",
        r."errorCode", r."requestId", r."idempotencyKey", r."replayed", r."durationUs", r."clientIp",
        r."deprecatedUse", r."traceId"
      from json_to_recordset(${value('records')}::json) as r("at" double precision, "companyId" integer,
        "apiKeyId" integer, "method" text, "route" text, "status" smallint, "errorCode" text,
        "requestId" text, "idempotencyKey" text, "replayed" boolean, "durationUs" integer, "clientIp" text,
        "deprecatedUse" jsonb, "traceId" text)
      returning 1),
    usage as (
      insert into ${u} as u (hour, company_id, api_key_id, requests, status_2xx, status_3xx, status_4xx,
        status_5xx, rate_limited, writes, deprecated, latency)
      select to_timestamp(r."hour" / 1000.0), r."companyId", r."apiKeyId", r."requests", r."status2xx",
        r."status3xx", r."status4xx", r."status5xx", r."rateLimited", r."writes", r."deprecated", r."latency"
      from json_to_recordset(${value('usage')}::json) as r("hour" double precision,
        "companyId" integer, "apiKeyId" integer, "requests" integer, "status2xx" integer,
        "status3xx" integer, "status4xx" integer, "status5xx" integer, "rateLimited" integer,
        "writes" integer, "deprecated" integer, "latency" integer[])
      order by r."companyId", r."apiKeyId", r."hour"
      on conflict (company_id, api_key_id, hour) do update set
        requests = u.requests + excluded.requests,
        status_2xx = u.status_2xx + excluded.status_2xx,
        status_3xx = u.status_3xx + excluded.status_3xx,
        status_4xx = u.status_4xx + excluded.status_4xx,
        status_5xx = u.status_5xx + excluded.status_5xx,
        rate_limited = u.rate_limited + excluded.rate_limited,
        writes = u.writes + excluded.writes,
        deprecated = u.deprecated + excluded.deprecated,
        latency = array(select coalesce(a, 0) + coalesce(b, 0)
          from unnest(u.latency, excluded.latency) with ordinality as l(a, b, i) order by l.i)
      returning 1),
    codes as (
      insert into ${c} as c (hour, company_id, api_key_id, kind, code, count)
      select to_timestamp(r."hour" / 1000.0), r."companyId", r."apiKeyId", r."kind", r."code", r."count"
      from json_to_recordset(${value('codes')}::json) as r("hour" double precision,
        "companyId" integer, "apiKeyId" integer, "kind" text, "code" text, "count" integer)
      order by r."companyId", r."apiKeyId", r."hour", r."kind", r."code"
      on conflict (company_id, api_key_id, hour, kind, code) do update set count = c.count + excluded.count
      returning 1)
    select (select count(*) from logged)::integer as "logged", (select count(*) from usage)::integer as "usage",
      (select count(*) from codes)::integer as "codes"`,
);
// ctid: the rows themselves (the log has no key); SKIP LOCKED: another instance's batch is its own.
const PRUNE = fixedStatement(
  sql`with deleted as (
      delete from ${requestLog} where ctid = any(array(
        select ctid from ${requestLog} where at < ${value('before')}::timestamptz
        limit ${value('limit')}::integer for update skip locked))
      returning 1)
    select count(*)::integer as "count" from deleted`,
);

// The rollups of the hours before the log's horizon (whole hours: an hour still partly kept stays).
const PRUNE_USAGE = fixedStatement(
  sql`with usage as (delete from ${requestUsage} where hour < ${value('before')}::timestamptz returning 1),
      codes as (delete from ${requestUsageCodes} where hour < ${value('before')}::timestamptz returning 1)
    select ((select count(*) from usage) + (select count(*) from codes))::integer as "count"`,
);

export function createRequestLog(db: Database, options: RequestLogOptions = {}): RequestLog {
  const clock = options.clock ?? Date.now;
  const recording = options.recording ?? true;
  let buffer: RequestRecord[] = [];
  let writing: Promise<void> | null = null;
  let soon: NodeJS.Immediate | null = null;
  let closed = false;
  let lastWarning = 0;

  const warn = (error: unknown, message: string) => {
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    options.log?.warn({ err: error }, message);
  };

  const write = async (batch: RequestRecord[]) => {
    try {
      const { rows, codes } = rollUp(batch);
      await runFixed(db, INSERT, {
        records: JSON.stringify(batch),
        usage: JSON.stringify(rows),
        codes: JSON.stringify(codes),
      });
      metrics.requestLogRecords('written', batch.length);
    } catch (error) {
      metrics.requestLogRecords('dropped', batch.length);
      warn(error, 'request log: records dropped, the database did not take them');
    }
  };

  /** Writes batches until the buffer is empty; one writer at a time. */
  const flush = (): Promise<void> => {
    if (writing) return writing;
    if (buffer.length === 0) return Promise.resolve();
    writing = (async () => {
      try {
        while (buffer.length > 0) {
          const batch = buffer.length <= BATCH_SIZE ? buffer : buffer.slice(0, BATCH_SIZE);
          buffer = buffer.length <= BATCH_SIZE ? [] : buffer.slice(BATCH_SIZE);
          await write(batch);
        }
      } finally {
        writing = null;
      }
    })();
    return writing;
  };

  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();

  const prune = async (): Promise<number> => {
    const horizon = clock() - RETENTION_DAYS * DAY_MS;
    const before = new Date(horizon).toISOString();
    await runFixed(db, PRUNE_USAGE, {
      before: new Date(Math.floor(horizon / HOUR_MS) * HOUR_MS).toISOString(),
    });
    let deleted = 0;
    for (;;) {
      const [row] = await runFixed<{ count: number }>(db, PRUNE, { before, limit: PRUNE_BATCH });
      const count = row?.count ?? 0;
      deleted += count;
      if (count < PRUNE_BATCH || closed) return deleted;
    }
  };

  let pruning: Promise<unknown> | null = null;
  const pruneTimer =
    options.prune === false
      ? null
      : setInterval(() => {
          pruning ??= prune()
            .catch((error: unknown) => warn(error, 'request log: pruning failed'))
            .finally(() => {
              pruning = null;
            });
        }, PRUNE_EVERY_MS);
  pruneTimer?.unref();

  return {
    record(record) {
      if (!recording) return;
      if (closed || buffer.length >= MAX_BUFFERED) {
        metrics.requestLogRecords('dropped', 1);
        return;
      }
      buffer.push(record);
      if (buffer.length >= BATCH_SIZE && !writing && !soon) {
        soon = setImmediate(() => {
          soon = null;
          void flush();
        });
      }
    },
    flush,
    prune,
    now: clock,
    recording,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      if (pruneTimer) clearInterval(pruneTimer);
      if (soon) clearImmediate(soon);
      await pruning;
      await writing;
      await flush();
    },
  };
}
