// The total of a list, by one rule (`listTotal`): the exact total this instance remembers for the
// list at the same data version (memory.ts); otherwise the counters the writes keep
// (drizzle/0010_list_counts.sql), from the first counters table of the declaration that answers
// every filter the request sets: a sum over a few thousand counter rows instead of a count over up
// to a million table rows, exact in any snapshot since a write moves its rows and their counters in
// one transaction; otherwise a count of the table. Read after declaration.ts and page.ts.
import {
  and,
  type Column,
  count,
  getTableColumns,
  getTableName,
  gt,
  gte,
  lt,
  type SQL,
  sql,
} from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { type AnyList, type ListContext, ListRequest, readingContext } from './declaration.js';
import { countAtVersion, readDataVersion } from './memory.js';

/**
 * The exact total of a list: remembered when `version` (read by the caller, e.g. alongside the
 * page's rows) is the version it was counted at, otherwise counted and remembered.
 */
export async function listTotal(request: ListRequest, version: string | null): Promise<number> {
  const { db, lists: memory, companyId } = request.context;
  if (!memory) return (await countAtVersion(db, companyId, countOf(request))).total;
  const remembered = memory.totals.get(request.key);
  if (remembered && version !== null && remembered.version === version) return remembered.total;
  // A count started by a caller that read the same version began after that read, exactly as
  // this caller's own count would: sharing it gives the same answer with one scan, not one each.
  const sharedKey = `${request.key}|${version}`;
  let counting = memory.counting.get(sharedKey);
  if (!counting) {
    counting = countAtVersion(db, companyId, countOf(request)).finally(() =>
      memory.counting.delete(sharedKey),
    );
    memory.counting.set(sharedKey, counting);
  }
  const counted = await counting;
  memory.totals.set(request.key, counted);
  return counted.total;
}

/** The exact total of a list now (`/ping`'s customers_visible: the unfiltered customers list). */
export async function totalOf(context: ListContext, list: AnyList, query: object): Promise<number> {
  const reading = readingContext(context);
  const version = reading.lists ? await readDataVersion(reading.db, reading.companyId) : null;
  return listTotal(new ListRequest(list, reading, query), version);
}

/** Which counters table of the declaration answers every filter set (-1: none does). */
function countersFor(request: ListRequest): number {
  return request.list.counters.findIndex((_, i) =>
    request.active.every(({ declared }) => declared.countedBy[i] !== undefined),
  );
}

/** What a total counted now is read from: a counters table's name, or `count(*)` (tests, docs). */
export function totalSourceOf(list: AnyList, query: object): string {
  const request = new ListRequest(list, { companyId: 0 } as ListContext, query);
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
  // `updated_since`: the whole UTC days after the one of `since` from the counters (by
  // `updated_on`, the UTC date of a change), plus the rows of that day from `since` on, counted in
  // the table itself (an index range on the company's `updated_at`: one day of changes).
  const since = byDay.declared.filter.since(byDay.value, context.timeZone);
  const sinceDay = sql`((${since}) at time zone 'UTC')::date`;
  const nextMidnight = sql`((${sinceDay} + 1)::timestamp at time zone 'UTC')`;
  const updatedOn = byDay.declared.countedBy[index] as Column;
  const laterDays = counterSum(total, sql`${where} and ${updatedOn} > ${sinceDay}`);
  const changed = byDay.declared.column;
  const sameDay = countRows(
    request,
    and(request.where(others), gte(changed, since), lt(changed, nextMidnight)),
  );
  return sql`select (${laterDays}) + (${sameDay})`;
}

/** `select` of the sum of the counter rows that `where` keeps (0 when none). */
function counterSum(total: Column, where: SQL): SQL {
  return sql`select coalesce(sum(${total}), 0) from ${sql.identifier(getTableName(total.table))} where ${where}`;
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
