// The first total of a list, from the counters the writes keep (drizzle/0010_list_counts.sql):
// a sum over a few thousand counter rows instead of a count over up to a million table rows.
// Exact in any snapshot: a write moves its rows and their counters in one transaction, and a
// total is read in one statement.
import { type Column, getTableName, type SQL, sql } from 'drizzle-orm';

/** `select` of the sum of the counter rows that `where` keeps (0 when none). */
export function counterSum(count: Column, where: SQL): SQL {
  return sql`select coalesce(sum(${count}), 0) from ${sql.identifier(getTableName(count.table))} where ${where}`;
}

/** The UTC date `updated_on` counts a change of this instant under. */
export function utcDay(instant: SQL): SQL {
  return sql`((${instant}) at time zone 'UTC')::date`;
}

/** The first instant of the UTC day after `instant`'s. */
function nextUtcMidnight(instant: SQL): SQL {
  return sql`((${utcDay(instant)} + 1)::timestamp at time zone 'UTC')`;
}

/**
 * The rows changed at `since` or later (`updated_since`): the whole UTC days after the one of
 * `since` from the counters (by `updated_on`), plus the rows of that day from `since` on, counted
 * in the table itself (an index range on the company's `updated_at`: one day of changes).
 */
export function changedSinceCount(
  since: SQL,
  counters: { count: Column; updatedOn: Column; where: SQL },
  sameDay: (from: SQL, until: SQL) => SQL,
): SQL {
  const laterDays = counterSum(
    counters.count,
    sql`${counters.where} and ${counters.updatedOn} > ${utcDay(since)}`,
  );
  return sql`select (${laterDays}) + (${sameDay(since, nextUtcMidnight(since))})`;
}
