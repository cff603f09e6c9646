// The kinds of list filter: what a query parameter becomes in a list's declaration (see
// src/db/list-declaration.ts). Each names the column it reads, by its name in src/db/schema.ts, and
// that name decides whether the counters the writes keep can answer it: a counters table with a
// column of that name counts by it (drizzle/0010_list_counts.sql).
import { type Column, eq, gte, lte, type SQL } from 'drizzle-orm';
import { instantOf, searchCondition } from './lists.js';

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
 * `since` plus that day counted in the table (changedSinceCount); `never`: only a count of the
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

/** `updated_since`: changed at the instant given or later (instantOf: a date is in the service's zone). */
export function changedSince(): ListFilter {
  const since = (value: unknown, timeZone: string) => instantOf(String(value), timeZone);
  return {
    column: 'updatedAt',
    condition: (on, value, timeZone) => gte(on, since(value, timeZone)),
    counted: 'days',
    since,
    range: true,
  };
}

/** `search`: a substring of any of `columns`, looked up in the folded `searchText` (searchCondition). */
export function matchingText(columns: Column[]): ListFilter {
  return {
    column: 'searchText',
    condition: (on, value) => searchCondition(String(value), on, columns),
    counted: 'never',
    range: false,
  };
}
