// The one list engine. Each resource declares its list as data in its repository (`declareList`):
// its table, which rows a company sees, one filter per query parameter (src/db/list-filters.ts),
// its sorts and the counters the writes keep for it. Here, and only here: which SQL reads a page
// (src/db/lists.ts has the pieces and the skeleton, `paginate`) and where its total comes from
// (`listTotal`).
import {
  and,
  type Column,
  count,
  getTableColumns,
  getTableName,
  gt,
  gte,
  inArray,
  lt,
  or,
  type SQL,
} from 'drizzle-orm';
import { type PgColumn, type PgTable, unionAll } from 'drizzle-orm/pg-core';
import type { Static, TSchema } from 'typebox';
import type { Database } from './client.js';
import { changedSinceCount, counterSum } from './list-counts.js';
import type { ListFilter } from './list-filters.js';
import { exactTotal, type ListMemory, listKeyOf, readDataVersion } from './list-memory.js';
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

/** What reading a list needs of the request (a CompanyContext is one). */
export interface ListContext {
  db: Database;
  companyId: number;
  timeZone: string;
  lists?: ListMemory | undefined;
}

/** A select of the rows a list shows, made `$dynamic()`: the engine adds the page's where, order and cut. */
export interface RowsSelect<R> extends PromiseLike<R[]> {
  where(where: SQL | undefined): RowsSelect<R>;
  orderBy(...columns: SQL[]): RowsSelect<R>;
  limit(limit: number): RowsSelect<R>;
  offset(offset: number): RowsSelect<R>;
}

/** A table of counters (drizzle/0010): `company_id`, the columns it counts by, and `count`. */
export interface ListCounters {
  table: PgTable;
  /** Its rows of what the company sees. */
  visible(companyId: number): SQL;
  /** A column under which rows without a value are counted as `-infinity`: a filter on it leaves them out. */
  undated?: string;
}

type QueryOf<S extends TSchema> = Static<S>;
type Paging = 'page' | 'per_page' | 'sort' | 'order';
type SortOf<Q> = Q extends { sort?: infer S } ? Extract<S, string> : never;

export interface ListDeclaration<S extends TSchema, T extends { id: number }, R> {
  /** Names the list in what an instance remembers (totals, page ends). */
  resource: string;
  /** Its query-string schema: every parameter but the paging ones needs a filter below. */
  query: S;
  table: PgTable;
  id: PgColumn;
  /**
   * The rows a company sees: one condition, or the parts of a union, each read on its own index
   * and merged (customers: own rows, then the global ones; no index serves `a or b`).
   */
  visible(companyId: number): SQL | readonly [SQL, SQL];
  filters: { readonly [P in Exclude<keyof QueryOf<S>, Paging>]-?: ListFilter };
  sorts: Record<SortOf<QueryOf<S>>, Column>;
  defaultOrder: { sort: SortOf<QueryOf<S>>; order: SortOrder };
  /** The counters tables that may answer a total, tried in this order. */
  counters: readonly ListCounters[];
  /**
   * Whether a short list filtered by a range on another column than the order's is read through
   * that filter (readsFilterFirst), its total counted first.
   */
  shortListsByFilter: boolean;
  /** Whether a page's ids are read from the table alone first, the joins made for those rows only. */
  pageIdsFirst: boolean;
  /** The select of the rows (a union-visible list: whole rows of `table`). */
  select(context: ListContext): RowsSelect<R>;
  /** The page's resources, from its rows in order. */
  resources(context: ListContext, rows: R[]): T[] | Promise<T[]>;
}

/** A filter of a declared list, with its column in the table and in each counters table. */
interface DeclaredFilter {
  param: string;
  filter: ListFilter;
  column: Column;
  /** By counters table: the column that answers the filter; absent: that table cannot. */
  countedBy: (Column | undefined)[];
}

/** What the engine reads of a declared list (its query's types apart). */
interface DeclaredList<T extends { id: number }, R>
  extends Omit<ListDeclaration<TSchema, T, R>, 'query' | 'filters' | 'sorts' | 'defaultOrder'> {
  readonly sorts: Record<string, Column>;
  readonly defaultOrder: { sort: string; order: SortOrder };
  readonly declared: readonly DeclaredFilter[];
}

/** A declared list, read by `readList` with a query of its schema. */
export interface List<S extends TSchema, T extends { id: number }, R> extends DeclaredList<T, R> {
  readonly query: S;
}

type AnyList = DeclaredList<{ id: number }, unknown>;

function columnOf(table: PgTable, name: string): Column | undefined {
  return (getTableColumns(table) as Record<string, Column>)[name];
}

/** A list from its declaration: every filter's columns looked up once (an unknown one fails at start). */
export function declareList<S extends TSchema, T extends { id: number }, R>(
  declaration: ListDeclaration<S, T, R>,
): List<S, T, R> {
  const declared = Object.entries(declaration.filters as Record<string, ListFilter>).map(
    ([param, filter]) => {
      const column = columnOf(declaration.table, filter.column);
      if (!column) throw new Error(`${declaration.resource}: no column ${filter.column} for ${param}`);
      const countedBy = declaration.counters.map(({ table }) =>
        filter.counted === 'never'
          ? undefined
          : columnOf(table, filter.counted === 'days' ? 'updatedOn' : filter.column),
      );
      return { param, filter, column, countedBy };
    },
  );
  const { sorts, defaultOrder } = declaration;
  return { ...declaration, sorts, defaultOrder, declared };
}

/** The filters a query sets (an empty text sets none), in the declaration's order. */
interface Active {
  declared: DeclaredFilter;
  value: unknown;
}

function activeFilters(list: AnyList, query: object): Active[] {
  const values = query as Record<string, unknown>;
  return list.declared
    .map((declared) => ({ declared, value: values[declared.param] }))
    .filter(({ value }) => value !== undefined && value !== '');
}

function keyOf(list: { resource: string }, companyId: number, active: Active[]): string {
  return listKeyOf(
    companyId,
    list.resource,
    Object.fromEntries(active.map(({ declared, value }) => [declared.param, value])),
  );
}

/** The conditions of a request on the list's table, and how to count the rows one keeps. */
class ListRequest {
  readonly parts: readonly SQL[] | undefined;
  readonly visible: SQL;
  /** Names the list in what the instance remembers. */
  readonly key: string;

  constructor(
    readonly list: AnyList,
    readonly context: ListContext,
    readonly active: Active[],
  ) {
    const visible = list.visible(context.companyId);
    this.parts = Array.isArray(visible) ? visible : undefined;
    this.visible = Array.isArray(visible) ? or(...visible)! : (visible as SQL);
    this.key = keyOf(list, context.companyId, active);
  }

  conditions(active: Active[]): SQL[] {
    return active.map(({ declared, value }) =>
      declared.filter.condition(declared.column, value, this.context.timeZone),
    );
  }

  /** The rows of `active` (a union-visible list: within the union, so visibility is not repeated). */
  where(active: Active[] = this.active): SQL | undefined {
    const conditions = this.conditions(active);
    return this.parts ? and(...conditions) : and(this.visible, ...conditions);
  }

  /** `select` of the number of visible rows `where` keeps, in the table (a union: within it). */
  countRows(where: SQL | undefined): SQL {
    const { db } = this.context;
    const { table } = this.list;
    if (!this.parts) return db.select({ total: count() }).from(table).where(where).getSQL();
    // Named like the table, so conditions written on its columns apply to the union.
    const [own, other] = this.parts as [SQL, SQL];
    const visible = db
      .$with(getTableName(table))
      .as(unionAll(db.select().from(table).where(own), db.select().from(table).where(other)));
    return db.with(visible).select({ total: count() }).from(visible).where(where).getSQL();
  }
}

/**
 * `select` of the list's total from the first counters table that answers every active filter,
 * or, when none does, a count of the table.
 */
function countOf(request: ListRequest): SQL {
  const { list, context, active } = request;
  const index = list.counters.findIndex((_, i) => active.every(({ declared }) => declared.countedBy[i]));
  const counters = list.counters[index];
  if (!counters) return request.countRows(request.where());
  const columnIn = (declared: DeclaredFilter) => declared.countedBy[index] as Column;
  const byDay = active.find(({ declared }) => declared.filter.counted === 'days');
  const since = byDay?.declared.filter.counted === 'days' ? byDay.declared.filter.since : undefined;
  const others = active.filter((filter) => filter !== byDay);
  const undated = counters.undated;
  const dated = undated && others.some(({ declared }) => declared.filter.column === undated);
  const table = getTableColumns(counters.table) as Record<string, Column>;
  const where = and(
    counters.visible(context.companyId),
    dated ? gt(table[undated] as Column, '-infinity') : undefined,
    ...others.map(({ declared, value }) =>
      declared.filter.condition(columnIn(declared), value, context.timeZone),
    ),
  )!;
  if (!byDay || !since) return counterSum(table.count as Column, where);
  const changed = byDay.declared.column;
  return changedSinceCount(
    since(byDay.value, context.timeZone),
    { count: table.count as Column, updatedOn: columnIn(byDay.declared), where },
    (from, until) => request.countRows(and(request.where(others), gte(changed, from), lt(changed, until))),
  );
}

/**
 * Where a list's total comes from, the one rule: the total remembered for this list at the same
 * data version (src/db/list-memory.ts); otherwise the counters (drizzle/0010), when one counters
 * table answers every filter the request sets; otherwise a count of the table.
 */
function listTotal(request: ListRequest, version: string | null): Promise<number> {
  const { db, lists, companyId } = request.context;
  return exactTotal(db, lists, companyId, request.key, () => countOf(request), version);
}

/** The exact total of a list now (`/ping`'s customers_visible: the unfiltered customers list). */
export async function totalOf(context: ListContext, list: AnyList, query: object): Promise<number> {
  const version = context.lists ? await readDataVersion(context.db, context.companyId) : null;
  return listTotal(new ListRequest(list, context, activeFilters(list, query)), version);
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

/** A page of a declared list, for a request's query, and its pagination. */
export function readList<S extends TSchema, T extends { id: number }, R>(
  context: ListContext,
  list: List<S, T, R>,
  query: Static<S>,
  page: PageRequest,
): Promise<Page<T>> {
  const request = new ListRequest(list, context, activeFilters(list, query as object));
  const order = orderByOf(
    query as { sort?: string; order?: SortOrder },
    list.sorts,
    list.id,
    list.defaultOrder,
  );
  return paginate(context, page, {
    key: request.key,
    order,
    rowsAfterTotal: list.shortListsByFilter && request.active.some(({ declared }) => declared.filter.range),
    rows: async (limit, offset, after, total) =>
      list.resources(context, await pageRows(request, list, { order, limit, offset, after, total })),
    total: (version) => listTotal(request, version),
  });
}
