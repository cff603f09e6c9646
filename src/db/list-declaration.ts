// A list as data: each resource declares its list in its repository (`declareList`): its table,
// which rows a company sees, one filter per query parameter (src/db/list-filters.ts), its sorts,
// the counters the writes keep for it, and how its rows become resources. A request of a list
// (`ListRequest`) is its filters set by a query, as conditions. Read by src/db/list-engine.ts.
import { and, type Column, getTableColumns, or, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Static, TSchema } from 'typebox';
import { type Database, readOnly } from './client.js';
import type { ListFilter } from './list-filters.js';
import { type ListMemory, listKeyOf } from './list-memory.js';
import type { SortOrder } from './lists.js';

/** What reading a list needs of the request (a CompanyContext is one). */
export interface ListContext {
  db: Database;
  companyId: number;
  timeZone: string;
  lists?: ListMemory | undefined;
}

/**
 * The context a list reads through: its statements declared reads (`readOnly`), so that on the
 * embedded PGlite a list does not make the read cache check data_versions again.
 */
export function readingContext(context: ListContext): ListContext {
  return { ...context, db: readOnly(context.db) };
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
  filters: { readonly [P in Exclude<keyof Static<S>, Paging>]-?: ListFilter };
  sorts: Record<SortOf<Static<S>>, Column>;
  defaultOrder: { sort: SortOf<Static<S>>; order: SortOrder };
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
export interface DeclaredFilter {
  param: string;
  filter: ListFilter;
  column: Column;
  /** By counters table: the column that answers the filter; absent: that table cannot. */
  countedBy: (Column | undefined)[];
}

/** What the engine reads of a declared list (its query's types apart). */
export interface DeclaredList<T extends { id: number }, R>
  extends Omit<ListDeclaration<TSchema, T, R>, 'query' | 'filters' | 'sorts' | 'defaultOrder'> {
  readonly sorts: Record<string, Column>;
  readonly defaultOrder: { sort: string; order: SortOrder };
  readonly declared: readonly DeclaredFilter[];
}

/** A declared list, read by `readList` with a query of its schema. */
export interface List<S extends TSchema, T extends { id: number }, R> extends DeclaredList<T, R> {
  readonly query: S;
}

export type AnyList = DeclaredList<{ id: number }, unknown>;

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
  for (const { table, undated } of declaration.counters) {
    if (undated && !columnOf(table, undated))
      throw new Error(`${declaration.resource}: no column ${undated}`);
  }
  return { ...declaration, declared };
}

/** A filter a query sets, and its value. */
export interface ActiveFilter {
  declared: DeclaredFilter;
  value: unknown;
}

/** The filters a query sets (an empty text sets none), in the declaration's order. */
export function activeFilters(list: AnyList, query: object): ActiveFilter[] {
  const values = query as Record<string, unknown>;
  return list.declared
    .map((declared) => ({ declared, value: values[declared.param] }))
    .filter(({ value }) => value !== undefined && value !== '');
}

function keyOf(list: { resource: string }, companyId: number, active: ActiveFilter[]): string {
  return listKeyOf(
    companyId,
    list.resource,
    Object.fromEntries(active.map(({ declared, value }) => [declared.param, value])),
  );
}

/** A request of a list: the filters its query sets, as conditions on the list's table. */
export class ListRequest {
  readonly parts: readonly SQL[] | undefined;
  readonly visible: SQL;
  /** Names the list in what the instance remembers. */
  readonly key: string;

  constructor(
    readonly list: AnyList,
    readonly context: ListContext,
    readonly active: ActiveFilter[],
  ) {
    const visible = list.visible(context.companyId);
    this.parts = Array.isArray(visible) ? visible : undefined;
    this.visible = Array.isArray(visible) ? or(...visible)! : (visible as SQL);
    this.key = keyOf(list, context.companyId, active);
  }

  /** The rows of `active` (a union-visible list: within the union, so visibility is not repeated). */
  where(active: ActiveFilter[] = this.active): SQL | undefined {
    const { timeZone } = this.context;
    const conditions = active.map(({ declared, value }) =>
      declared.filter.condition(declared.column, value, timeZone),
    );
    return this.parts ? and(...conditions) : and(this.visible, ...conditions);
  }
}
