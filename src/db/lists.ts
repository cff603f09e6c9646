// The pieces of every list that src/db/list-engine.ts puts together: ORDER BY with the
// tie-breaker, filter-first reads, search and `updated_since` conditions, and `paginate`, the one
// skeleton that turns a page request into the page's rows and the pagination object. The query-string half (schema, defaults, hints) is src/http/list-query.ts.
import { asc, type Column, desc, getTableName, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Database } from './client.js';
import { type ListMemory, readDataVersion } from './list-memory.js';

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

/** How one list reads a page of its resources and its total, with the same filters (src/db/list-engine.ts). */
export interface ListSource<T extends { id: number }> {
  /** Names the list (listKeyOf: company, resource, filters), for remembered page ends. */
  key: string;
  order: ListOrder;
  /**
   * The page's rows: past the row `after` selects when given (a seek), otherwise at `offset`.
   * `total` is the list's exact total when `rowsAfterTotal` asked for it.
   */
  rows(limit: number, offset: number, after?: SQL, total?: number): Promise<T[]>;
  /** The list's exact total, given the data version read (null: nothing is remembered). */
  total(version: string | null): Promise<number>;
  /** Read the rows once the total is known (see `readsFilterFirst`), not alongside the version. */
  rowsAfterTotal?: boolean;
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
  const cursorKey = (pageNumber: number) => `${source.key}|${order.key}|${page.perPage}|${pageNumber}`;
  const previous =
    lists && order.after && page.page > 1 ? lists.cursors.get(cursorKey(page.page - 1)) : undefined;
  const seek = previous && order.after ? order.after(previous.lastId) : undefined;

  let data: T[];
  let version: string | null;
  let total: number;
  if (source.rowsAfterTotal) {
    // Version, total, rows, one after the other: the rows are read at the version or later, so
    // a page end remembered with it is never ahead of the data it describes.
    version = lists ? await readDataVersion(db, companyId) : null;
    total = await source.total(version);
    const seekNow = previous?.version === version ? seek : undefined;
    data = await source.rows(page.perPage, seekNow ? 0 : page.offset, seekNow, total);
  } else {
    [data, version] = await Promise.all([
      source.rows(page.perPage, seek ? 0 : page.offset, seek),
      lists ? readDataVersion(db, companyId) : null,
    ]);
    // The data moved since page N was read: where it ended no longer says where N+1 starts.
    if (seek && previous?.version !== version) data = await source.rows(page.perPage, page.offset);
    total = await source.total(version);
  }
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
  /** The column of the requested sort (or the default one). */
  column: Column;
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
    column,
    key: `${sort}:${order}`,
    after: column.notNull
      ? (id) =>
          sql`(${column}, ${idColumn}) ${comparison} (select ${column}, ${idColumn} from ${sql.identifier(table)} where ${idColumn} = ${id})`
      : null,
  };
}

/** Lists of at most this many rows may be read through their filter, then sorted. */
export const SHORT_LIST_ROWS = 10_000;

/**
 * Whether a page is better read through the list's filter than along its order's index: a short
 * list (the exact total known) filtered by a range on another column than the order's. Dates,
 * creation and change times move together (what changed lately is mostly what is newest), which
 * no planner statistic says: walking `invoice_date` ascending for the invoices changed in the last
 * day passes nearly every row before the first match (0.7-1.9 s at 1M). Read through the filter's
 * index and sorted, a short list costs at most SHORT_LIST_ROWS rows (13 ms for 6,500 at 1M).
 */
export function readsFilterFirst(total: number | undefined, order: ListOrder, ranges: Column[]): boolean {
  return total !== undefined && total <= SHORT_LIST_ROWS && ranges.some((column) => column !== order.column);
}

/**
 * `(select ...)` of the ids of a page of `table`'s rows that `where` keeps, sorted once read:
 * the subquery's OFFSET 0 keeps the planner from reading them along the order's index instead.
 */
export function filterFirstIds(
  table: PgTable,
  idColumn: Column,
  order: ListOrder,
  where: SQL | undefined,
  limit: number,
  offset: number,
): SQL {
  const name = sql.identifier(getTableName(table));
  const matching = sql`select ${idColumn}, ${order.column} from ${table}${where ? sql` where ${where}` : sql``} offset 0`;
  return sql`(select ${idColumn} from (${matching}) as ${name} order by ${sql.join(order.orderBy, sql`, `)} limit ${limit} offset ${offset})`;
}

/**
 * Accent- and case-insensitive substring match on any of the columns (decisions.md: `search`),
 * looked up in `searchText`, the columns folded and joined by line breaks (src/db/schema.ts): a
 * term without a line break matches it exactly when it matches a column; one with a line break
 * is checked against each column too. `search_fold` is the SQL function of
 * drizzle/0001_search_fold.sql.
 */
export function searchCondition(term: string, searchText: Column, columns: Column[]): SQL {
  const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const inText = sql`${searchText} like search_fold(${pattern})`;
  if (!term.includes('\n')) return inText;
  const matches = columns.map((column) => sql`search_fold(${column}) like search_fold(${pattern})`);
  return sql`(${inText} and (${sql.join(matches, sql` or `)}))`;
}

/**
 * `updated_since` as a timestamptz: with an offset it is that instant; a date or a timestamp
 * without offset is read in the service's time zone.
 */
export function instantOf(value: string, timeZone: string): SQL {
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(value) && value.includes('T');
  return hasOffset ? sql`${value}::timestamptz` : sql`(${value}::timestamp at time zone ${timeZone})`;
}
