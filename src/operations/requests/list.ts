// `requests list`: a company's requests, newest first, filtered by key, status (one or a class),
// time, route and error code; and the readers of those filters' arguments.
import { and, desc, eq, gte, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import { requestLog } from '../../db/schema.js';
import { atOrAfter, type Moment, type RawArgs } from '../arguments.js';
import { ArgumentError } from '../errors.js';
import { asLoggedRequest, type LoggedRequest, routeTemplate } from './logged-request.js';

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
  return rows.map((row) => asLoggedRequest(row, timeZone));
}

/** `--status 429` (one status) or `--status 4xx` (a class). */
export function statusArg(raw: RawArgs): StatusFilter | undefined {
  const value = raw.status;
  if (value === undefined) return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text === 'string' && /^[1-5][0-9][0-9]$/.test(text)) return { exact: Number(text) };
  if (typeof text === 'string' && /^[1-5]xx$/i.test(text)) return { class: Number(text[0]) };
  throw new ArgumentError({ key: 'arg.status', params: { value: String(text) } });
}

/** `--route`, in any form routeTemplate reads -> the stored template. */
export function routeArg(raw: RawArgs): string | undefined {
  const value = raw.route;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\/?[A-Za-z0-9_/{}:-]{1,200}$/.test(value.trim())) {
    throw new ArgumentError({ key: 'arg.route' });
  }
  return routeTemplate(value);
}

/** `--error validation_failed`: an error envelope's code. */
export function errorCodeArg(raw: RawArgs): string | undefined {
  const value = raw.error;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(value.trim())) {
    throw new ArgumentError({ key: 'arg.error_code' });
  }
  return value.trim();
}
