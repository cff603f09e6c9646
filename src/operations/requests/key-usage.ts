// `keys usage`: one key's requests, refusals and 429s per day over the last 30 days, read from the
// hourly rollups the log's writer keeps (src/request-log/usage.ts), never from a scan of the log.
import { eq, sql } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import { queryRows } from '../../db/client.js';
import { apiKeys, requestUsage } from '../../db/schema.js';
import { OperationError } from '../errors.js';

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
