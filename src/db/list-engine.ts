// The one list engine: a page of a declared list (src/db/list-declaration.ts) and its total
// (src/db/list-totals.ts). Here, and only here, is decided which SQL reads a page; src/db/lists.ts
// has the pieces and the skeleton, `paginate`.
import { and, getTableName, inArray, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Static, TSchema } from 'typebox';
import {
  activeFilters,
  type DeclaredList,
  type List,
  type ListContext,
  ListRequest,
  readingContext,
} from './list-declaration.js';
import { listTotal } from './list-totals.js';
import {
  filterFirstIds,
  type ListOrder,
  orderByOf,
  type Page,
  type PageRequest,
  paginate,
  readsFilterFirst,
  type SortOrder,
} from './lists.js';

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

/** A page of a declared list, for a request's query, and its pagination. */
export function readList<S extends TSchema, T extends { id: number }, R>(
  context: ListContext,
  list: List<S, T, R>,
  query: Static<S>,
  page: PageRequest,
): Promise<Page<T>> {
  const reading = readingContext(context);
  const request = new ListRequest(list, reading, activeFilters(list, query as object));
  const order = orderByOf(
    query as { sort?: string; order?: SortOrder },
    list.sorts,
    list.id,
    list.defaultOrder,
  );
  return paginate(reading, page, {
    key: request.key,
    order,
    rowsAfterTotal: list.shortListsByFilter && request.active.some(({ declared }) => declared.filter.range),
    rows: async (limit, offset, after, total) =>
      list.resources(reading, await pageRows(request, list, { order, limit, offset, after, total })),
    total: (version) => listTotal(request, version),
  });
}
