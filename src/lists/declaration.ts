// What a list is, as data: each resource declares its list in its repository (`declareList`): its
// table, which rows a company sees, one filter per query parameter (one of the kinds below:
// `equalTo`, `atLeast`, `atMost`, `changedSince`, `matchingText`), its sorts and default order, the
// counters the writes keep for it, and how its rows become resources. A request of a list
// (`ListRequest`) is the filters its query sets, as conditions on the table. Read this first of
// src/lists/, then page.ts (how a page is read), total.ts (its total) and memory.ts.
import { and, type Column, eq, getTableColumns, gte, lte, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Static, TSchema } from 'typebox';
import { type Database, readOnly } from '../db/client.js';
import type { ListMemory } from './memory.js';

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

export type SortOrder = 'asc' | 'desc';

/** A select of the rows a list shows, made `$dynamic()`: page.ts adds the page's where, order and cut. */
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

// ---- The kinds of filter. Each names the column it reads, by its name in src/db/schema.ts, and
// that name decides whether the counters the writes keep can answer it: a counters table with a
// column of that name counts by it (drizzle/0010_list_counts.sql).

interface FilterOnColumn {
  /** The column it reads, by its name in the schema: of the list's table, and of a counters table. */
  readonly column: string;
  /** The condition for a value of the query parameter, on `column` of either table. */
  readonly condition: (column: Column, value: unknown, timeZone: string) => SQL;
  /** A range of `column`: a short list filtered by it is read through it (readsFilterFirst). */
  readonly range: boolean;
}

/**
 * How counters answer a filter: `column` when a counters table has the filter's column (the same
 * condition on it); `days` when it has `updatedOn`, from the counters of the days after the one of
 * `since` plus that day counted in the table (total.ts, countOf); `never`: only a count of the
 * table does.
 */
export type ListFilter =
  | (FilterOnColumn & { readonly counted: 'column' | 'never' })
  | (FilterOnColumn & {
      readonly counted: 'days';
      /** The instant the rows changed at or after. */
      readonly since: (value: unknown, timeZone: string) => SQL;
    });

/** `column = value` (`parse` turns the query's text into the column's value). */
export function equalTo(column: string, parse: (value: unknown) => unknown = (value) => value): ListFilter {
  return { column, condition: (on, value) => eq(on, parse(value)), counted: 'column', range: false };
}

/** `column >= value`: the start of a range (`date_from`). */
export function atLeast(column: string): ListFilter {
  return { column, condition: (on, value) => gte(on, value), counted: 'column', range: true };
}

/** `column <= value`: the end of a range (`date_to`). */
export function atMost(column: string): ListFilter {
  return { column, condition: (on, value) => lte(on, value), counted: 'column', range: true };
}

/**
 * `updated_since`: changed at the instant given or later. With an offset the value is that
 * instant; a date or a timestamp without offset is read in the service's time zone.
 */
export function changedSince(): ListFilter {
  const since = (value: unknown, timeZone: string) => {
    const text = String(value);
    const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(text) && text.includes('T');
    return hasOffset ? sql`${text}::timestamptz` : sql`(${text}::timestamp at time zone ${timeZone})`;
  };
  return {
    column: 'updatedAt',
    condition: (on, value, timeZone) => gte(on, since(value, timeZone)),
    counted: 'days',
    since,
    range: true,
  };
}

/**
 * `search`: an accent- and case-insensitive substring of any of `columns` (decisions.md), looked up
 * in `searchText`, the columns folded and joined by line breaks (src/db/schema.ts): a term without
 * a line break matches it exactly when it matches a column; one with a line break is checked
 * against each column too. `search_fold` is the SQL function of drizzle/0001_search_fold.sql.
 */
export function matchingText(columns: Column[]): ListFilter {
  const condition = (searchText: Column, value: unknown) => {
    const term = String(value);
    const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const inText = sql`${searchText} like search_fold(${pattern})`;
    if (!term.includes('\n')) return inText;
    const matches = columns.map((column) => sql`search_fold(${column}) like search_fold(${pattern})`);
    return sql`(${inText} and (${sql.join(matches, sql` or `)}))`;
  };
  return { column: 'searchText', condition, counted: 'never', range: false };
}

// ---- A declared list, and a request of it.

/** A filter of a declared list, with its column in the table and in each counters table. */
export interface DeclaredFilter {
  param: string;
  filter: ListFilter;
  column: Column;
  /** By counters table: the column that answers the filter; absent: that table cannot. */
  countedBy: (Column | undefined)[];
}

/** What page.ts and total.ts read of a declared list (its query's types apart). */
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

/** A request of a list: the filters its query sets, as conditions on the list's table. */
export class ListRequest {
  /** The filters the query sets (an empty text sets none), in the declaration's order. */
  readonly active: ActiveFilter[];
  readonly parts: readonly SQL[] | undefined;
  readonly visible: SQL;
  /** Names the list in what the instance remembers: company, resource and the filters that decide its rows. */
  readonly key: string;

  constructor(
    readonly list: AnyList,
    readonly context: ListContext,
    query: object,
  ) {
    const values = query as Record<string, unknown>;
    this.active = list.declared
      .map((declared) => ({ declared, value: values[declared.param] }))
      .filter(({ value }) => value !== undefined && value !== '');
    const visible = list.visible(context.companyId);
    this.parts = Array.isArray(visible) ? visible : undefined;
    this.visible = Array.isArray(visible) ? or(...visible)! : (visible as SQL);
    const filters = Object.fromEntries(this.active.map(({ declared, value }) => [declared.param, value]));
    this.key = `${context.companyId}|${list.resource}|${JSON.stringify(filters)}`;
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
