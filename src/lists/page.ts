// The one engine that reads a page of a declared list (declaration.ts) for a request: `readList`.
// Here, and only here, is decided which SQL reads a page: the order (the requested sort, then the
// id), a seek past where the previous page of a walk ended (memory.ts) or an offset, and the rows
// through the filter for a short list, per part of a union-visible list, or ids first. Its total
// is total.ts's. Read after declaration.ts; the query-string half (page, per_page, sort, order) is
// src/http/list-query.ts.
import { and, asc, type Column, desc, getTableName, inArray, type SQL, sql } from 'drizzle-orm';
import { type PgTable, unionAll } from 'drizzle-orm/pg-core';
import type { Static, TSchema } from 'typebox';
import {
  type DeclaredList,
  type List,
  type ListContext,
  ListRequest,
  readingContext,
  type SortOrder,
} from './declaration.js';
import { readDataVersion } from './memory.js';
import { listTotal } from './total.js';

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

/** A page of a declared list, for a request's query, and its pagination. */
export function readList<S extends TSchema, T extends { id: number }, R>(
  context: ListContext,
  list: List<S, T, R>,
  query: Static<S>,
  page: PageRequest,
): Promise<Page<T>> {
  const reading = readingContext(context);
  const request = new ListRequest(list, reading, query as object);
  const order = orderByOf(
    query as { sort?: string; order?: SortOrder },
    list.sorts,
    list.id,
    list.defaultOrder,
  );
  return paginate(request, list, order, page);
}

/**
 * A page and its pagination. The exact total is counted once per (company, list, data version)
 * and then remembered (memory.ts): reading the version costs a primary-key lookup, made alongside
 * the page's rows. Where page N ended is remembered too, so page N+1 of a walk seeks past that row
 * instead of skipping N pages of rows: every page of a walk costs the same. Both are used only at
 * the version they were read at; a write anywhere in the company moves it.
 */
async function paginate<T extends { id: number }, R>(
  request: ListRequest,
  list: DeclaredList<T, R>,
  order: ListOrder,
  page: PageRequest,
): Promise<Page<T>> {
  const { context } = request;
  const { db, companyId, lists } = context;
  /** The page's rows: past the row `after` selects when given (a seek), otherwise at `offset`. */
  const rows = async (offset: number, after?: SQL, total?: number) =>
    list.resources(
      context,
      await pageRows(request, list, { order, limit: page.perPage, offset, after, total }),
    );
  const cursorKey = (pageNumber: number) => `${request.key}|${order.key}|${page.perPage}|${pageNumber}`;
  const previous =
    lists && order.after && page.page > 1 ? lists.cursors.get(cursorKey(page.page - 1)) : undefined;
  const seek = previous && order.after ? order.after(previous.lastId) : undefined;

  let data: T[];
  let version: string | null;
  let total: number;
  if (list.shortListsByFilter && request.active.some(({ declared }) => declared.filter.range)) {
    // The rows need the total (readsFilterFirst). Version, total, rows, one after the other: the
    // rows are read at the version or later, so a page end remembered with it is never ahead of
    // the data it describes.
    version = lists ? await readDataVersion(db, companyId) : null;
    total = await listTotal(request, version);
    const seekNow = previous?.version === version ? seek : undefined;
    data = await rows(seekNow ? 0 : page.offset, seekNow, total);
  } else {
    [data, version] = await Promise.all([
      rows(seek ? 0 : page.offset, seek),
      lists ? readDataVersion(db, companyId) : null,
    ]);
    // The data moved since page N was read: where it ended no longer says where N+1 starts.
    if (seek && previous?.version !== version) data = await rows(page.offset);
    total = await listTotal(request, version);
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

/**
 * The page's rows: through the filter for a short list filtered by a range (readsFilterFirst);
 * otherwise along the order's index, per part of a union-visible list, or its ids first.
 */
function pageRows<R>(
  request: ListRequest,
  list: DeclaredList<{ id: number }, R>,
  page: { order: ListOrder; limit: number; offset: number; after: SQL | undefined; total?: number },
): PromiseLike<R[]> {
  const { db } = request.context;
  const { order, limit, offset, after } = page;
  const where = request.where();
  const ranges = request.active.filter(({ declared }) => declared.filter.range);
  const rangeColumns = ranges.map(({ declared }) => declared.column);
  if (list.shortListsByFilter && readsFilterFirst(page.total, order, rangeColumns)) {
    const filtered = request.parts ? and(request.visible, where, after) : and(where, after);
    const ids = filterFirstIds(list.table, list.id, order, filtered, limit, offset);
    return list
      .select(request.context)
      .where(inArray(list.id, ids))
      .orderBy(...order.orderBy);
  }
  if (request.parts) {
    // Each half is ordered and cut on its own index before the two are merged: left to itself
    // the planner scans and sorts every customer of the company (87 ms at 200k, 1 ms this way).
    const half = (part: SQL) =>
      db
        .select()
        .from(list.table)
        .where(and(part, where, after))
        .orderBy(...order.orderBy)
        .limit(offset + limit);
    const [own, other] = request.parts as [SQL, SQL];
    const merged = unionAll(half(own), half(other));
    return db
      .select()
      .from(merged.as(getTableName(list.table)))
      .orderBy(...order.orderBy)
      .limit(limit)
      .offset(offset) as PromiseLike<R[]>;
  }
  const filtered = and(where, after);
  if (list.pageIdsFirst) {
    const ids = db
      .select({ id: list.id })
      .from(list.table)
      .where(filtered)
      .orderBy(...order.orderBy)
      .limit(limit)
      .offset(offset);
    return list
      .select(request.context)
      .where(inArray(list.id, ids))
      .orderBy(...order.orderBy);
  }
  return list
    .select(request.context)
    .where(filtered)
    .orderBy(...order.orderBy)
    .limit(limit)
    .offset(offset);
}

interface ListOrder {
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
function orderByOf<S extends string>(
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
const SHORT_LIST_ROWS = 10_000;

/**
 * Whether a page is better read through the list's filter than along its order's index: a short
 * list (the exact total known) filtered by a range on another column than the order's. Dates,
 * creation and change times move together (what changed lately is mostly what is newest), which
 * no planner statistic says: walking `invoice_date` ascending for the invoices changed in the last
 * day passes nearly every row before the first match (0.7-1.9 s at 1M). Read through the filter's
 * index and sorted, a short list costs at most SHORT_LIST_ROWS rows (13 ms for 6,500 at 1M).
 */
function readsFilterFirst(total: number | undefined, order: ListOrder, ranges: Column[]): boolean {
  return total !== undefined && total <= SHORT_LIST_ROWS && ranges.some((column) => column !== order.column);
}

/**
 * `(select ...)` of the ids of a page of `table`'s rows that `where` keeps, sorted once read:
 * the subquery's OFFSET 0 keeps the planner from reading them along the order's index instead.
 */
function filterFirstIds(
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
