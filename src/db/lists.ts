// The database half of every list: ORDER BY with the tie-breaker, search and `updated_since`
// conditions, and `paginate`, the one skeleton that turns a page request into the page's rows and
// the pagination object. The query-string half (schema, defaults, hints) is src/http/list-query.ts.
import { asc, type Column, desc, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { RequestContext } from '../context.js';
import { exactTotal, readDataVersion } from './list-memory.js';

export type SortOrder = 'asc' | 'desc';

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** The contract's pagination object. */
export interface Pagination {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  last_page: number;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** How one list reads a page of its resources and counts all of them, with the same filters. */
export interface ListSource<T> {
  /** The resource and the filters that decide which rows belong to the list (not the order). */
  list: { resource: string; filters: Record<string, unknown> };
  rows(limit: number, offset: number): Promise<T[]>;
  /** `select count(*)` of the list, with the same filters. */
  count: SQLWrapper;
}

/**
 * A page and its pagination. The exact total is counted once per (company, list, data version)
 * and then remembered (src/db/list-memory.ts): reading the version costs a primary-key lookup,
 * made alongside the page's rows.
 */
export async function paginate<T>(
  context: RequestContext,
  page: PageRequest,
  source: ListSource<T>,
): Promise<Page<T>> {
  const { db, companyId, lists } = context;
  const [data, version] = await Promise.all([
    source.rows(page.perPage, page.offset),
    lists ? readDataVersion(db, companyId) : null,
  ]);
  const key = `${companyId}|${source.list.resource}|${JSON.stringify(source.list.filters)}`;
  const total = await exactTotal(db, lists, companyId, key, source.count.getSQL(), version);
  return {
    data,
    pagination: {
      total,
      count: data.length,
      per_page: page.perPage,
      current_page: page.page,
      last_page: Math.max(1, Math.ceil(total / page.perPage)),
    },
  };
}

/**
 * ORDER BY for a list: the requested sort (asc unless `order` says otherwise) or the resource's
 * default, always followed by the id in the same direction so pages never overlap or skip.
 */
export function orderByOf<S extends string>(
  query: { sort?: S; order?: SortOrder },
  columns: Record<S, Column | SQL>,
  idColumn: Column,
  fallback: { sort: S; order: SortOrder },
): SQL[] {
  const sort = query.sort ?? fallback.sort;
  const order = query.order ?? (query.sort ? 'asc' : fallback.order);
  const direction = order === 'asc' ? asc : desc;
  return [direction(columns[sort]), direction(idColumn)];
}

/**
 * Accent- and case-insensitive substring match on any of the columns (decisions.md: `search`).
 * `search_fold` is the SQL function of drizzle/0001_search_fold.sql.
 */
export function searchCondition(term: string, columns: (Column | SQL)[]): SQL {
  const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const matches = columns.map((column) => sql`search_fold(${column}) like search_fold(${pattern})`);
  return sql`(${sql.join(matches, sql` or `)})`;
}

/**
 * `updated_since` as a timestamptz: with an offset it is that instant; a date or a timestamp
 * without offset is read in the service's time zone.
 */
export function instantOf(value: string, timeZone: string): SQL {
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(value) && value.includes('T');
  return hasOffset ? sql`${value}::timestamptz` : sql`(${value}::timestamp at time zone ${timeZone})`;
}
