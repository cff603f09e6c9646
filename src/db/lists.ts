// The database half of every list: ORDER BY with the tie-breaker, search and `updated_since`
// conditions, and `paginate`, the one skeleton that turns a page request into the page's rows and
// the pagination object. The query-string half (schema, defaults, hints) is src/http/list-query.ts.
import { asc, type Column, desc, getTableName, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Database } from './client.js';
import { exactTotal, type ListMemory, listKeyOf, readDataVersion } from './list-memory.js';

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
export interface ListSource<T extends { id: number }> {
  /** The resource and the filters that decide which rows belong to the list (not the order). */
  list: { resource: string; filters: Record<string, unknown> };
  order: ListOrder;
  /** The page's rows: past the row `after` selects when given (a seek), otherwise at `offset`. */
  rows(limit: number, offset: number, after?: SQL): Promise<T[]>;
  /** `select count(*)` of the list, with the same filters. */
  count: SQLWrapper;
}

/**
 * A page and its pagination. The exact total is counted once per (company, list, data version)
 * and then remembered (src/db/list-memory.ts): reading the version costs a primary-key lookup,
 * made alongside the page's rows. Where page N ended is remembered too, so page N+1 of a walk
 * seeks past that row instead of skipping N pages of rows: every page of a walk costs the same.
 * Both are used only at the version they were read at; a write anywhere in the company moves it.
 */
export async function paginate<T extends { id: number }>(
  context: { db: Database; companyId: number; lists?: ListMemory | undefined },
  page: PageRequest,
  source: ListSource<T>,
): Promise<Page<T>> {
  const { db, companyId, lists } = context;
  const { order } = source;
  const listKey = listKeyOf(companyId, source.list.resource, source.list.filters);
  const cursorKey = (pageNumber: number) => `${listKey}|${order.key}|${page.perPage}|${pageNumber}`;
  const previous =
    lists && order.after && page.page > 1 ? lists.cursors.get(cursorKey(page.page - 1)) : undefined;
  const seek = previous && order.after ? order.after(previous.lastId) : undefined;

  let [data, version] = await Promise.all([
    source.rows(page.perPage, seek ? 0 : page.offset, seek),
    lists ? readDataVersion(db, companyId) : null,
  ]);
  // The data moved since page N was read: where it ended no longer says where N+1 starts.
  if (seek && previous?.version !== version) data = await source.rows(page.perPage, page.offset);
  const total = await exactTotal(db, lists, companyId, listKey, () => source.count.getSQL(), version);
  const last = data.at(-1);
  if (lists && order.after && last && version !== null) {
    lists.cursors.set(cursorKey(page.page), { version, lastId: last.id });
  }
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

export interface ListOrder {
  /** The requested sort then the id, in the same direction: pages never overlap or skip. */
  orderBy: SQL[];
  /** Names the order, for remembered page ends. */
  key: string;
  /**
   * The rows after the row with this id, in this order; null when the sort column may be null
   * (a seek past nulls is not one comparison, so those lists skip by offset).
   */
  after: ((id: number) => SQL) | null;
}

/**
 * The order of a list: the requested sort (asc unless `order` says otherwise) or the resource's
 * default, always followed by the id in the same direction so pages never overlap or skip.
 */
export function orderByOf<S extends string>(
  query: { sort?: S; order?: SortOrder },
  columns: Record<S, Column>,
  idColumn: Column,
  fallback: { sort: S; order: SortOrder },
): ListOrder {
  const sort = query.sort ?? fallback.sort;
  const order = query.order ?? (query.sort ? 'asc' : fallback.order);
  const direction = order === 'asc' ? asc : desc;
  const column = columns[sort];
  const table = getTableName(idColumn.table);
  const comparison = order === 'asc' ? sql.raw('>') : sql.raw('<');
  return {
    orderBy: [direction(column), direction(idColumn)],
    key: `${sort}:${order}`,
    after: column.notNull
      ? (id) =>
          sql`(${column}, ${idColumn}) ${comparison} (select ${column}, ${idColumn} from ${sql.identifier(table)} where ${idColumn} = ${id})`
      : null,
  };
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
