// Where the total of a list comes from: `listTotal`, the one rule, and the SQL of each source.
import { and, type Column, count, getTableColumns, getTableName, gt, gte, lt, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { changedSinceCount, counterSum } from './list-counts.js';
import {
  type AnyList,
  activeFilters,
  type ListContext,
  ListRequest,
  readingContext,
} from './list-declaration.js';
import { exactTotal, readDataVersion } from './list-memory.js';

/**
 * Where a list's total comes from, the one rule: the total remembered for this list at the same
 * data version (src/db/list-memory.ts); otherwise the counters the writes keep (drizzle/0010),
 * from the first counters table of the declaration that answers every filter the request sets;
 * otherwise a count of the table.
 */
export function listTotal(request: ListRequest, version: string | null): Promise<number> {
  const { db, lists, companyId } = request.context;
  return exactTotal(db, lists, companyId, request.key, () => countOf(request), version);
}

/** The exact total of a list now (`/ping`'s customers_visible: the unfiltered customers list). */
export async function totalOf(context: ListContext, list: AnyList, query: object): Promise<number> {
  const reading = readingContext(context);
  const version = reading.lists ? await readDataVersion(reading.db, reading.companyId) : null;
  return listTotal(new ListRequest(list, reading, activeFilters(list, query)), version);
}

/** Which counters table of the declaration answers every filter set (-1: none does). */
function countersFor(request: ListRequest): number {
  return request.list.counters.findIndex((_, i) =>
    request.active.every(({ declared }) => declared.countedBy[i] !== undefined),
  );
}

/** What a total counted now is read from: a counters table's name, or `count(*)` (tests, docs). */
export function totalSourceOf(list: AnyList, query: object): string {
  const request = new ListRequest(list, { companyId: 0 } as ListContext, activeFilters(list, query));
  const counters = list.counters[countersFor(request)];
  return counters ? getTableName(counters.table) : 'count(*)';
}

/** `select` of the list's total: from counters when they answer every filter set, else counted. */
function countOf(request: ListRequest): SQL {
  const { list, context, active } = request;
  const index = countersFor(request);
  const counters = list.counters[index];
  if (!counters) return countRows(request, request.where());
  const columns = getTableColumns(counters.table) as Record<string, Column>;
  const byDay = active.find(({ declared }) => declared.filter.counted === 'days');
  const others = active.filter((filter) => filter !== byDay);
  const undated = counters.undated;
  const dated = undated !== undefined && others.some(({ declared }) => declared.filter.column === undated);
  const where = and(
    counters.visible(context.companyId),
    dated ? gt(columns[undated] as Column, '-infinity') : undefined,
    ...others.map(({ declared, value }) =>
      declared.filter.condition(declared.countedBy[index] as Column, value, context.timeZone),
    ),
  )!;
  const total = columns.count as Column;
  if (byDay?.declared.filter.counted !== 'days') return counterSum(total, where);
  // The days after the one of `since` from the counters, that day in the table.
  const changed = byDay.declared.column;
  return changedSinceCount(
    byDay.declared.filter.since(byDay.value, context.timeZone),
    { count: total, updatedOn: byDay.declared.countedBy[index] as Column, where },
    (from, until) => countRows(request, and(request.where(others), gte(changed, from), lt(changed, until))),
  );
}

/** `select` of the number of visible rows `where` keeps, in the table (union-visible: within it). */
function countRows(request: ListRequest, where: SQL | undefined): SQL {
  const { db } = request.context;
  const { table } = request.list;
  if (!request.parts) return db.select({ total: count() }).from(table).where(where).getSQL();
  // Named like the table, so conditions written on its columns apply to the union.
  const [own, other] = request.parts as [SQL, SQL];
  const visible = db
    .$with(getTableName(table))
    .as(unionAll(db.select().from(table).where(own), db.select().from(table).where(other)));
  return db.with(visible).select({ total: count() }).from(visible).where(where).getSQL();
}
