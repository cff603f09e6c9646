// The first total of a list, from the counters the writes keep (drizzle/0010_list_counts.sql):
// a sum over a few thousand counter rows instead of a count over up to a million table rows.
// Exact in any snapshot: a write moves its rows and their counters in one transaction, and a
// total is read in one statement.
import { type Column, getTableName, type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from './client.js';

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

// ---- Checking and rebuilding the counters (bin/invoicing lists verify / rebuild) ----
// Rows loaded with the triggers off (pg_restore --disable-triggers, session_replication_role =
// replica, a bulk import) are not in the counters: their totals read 0. Each counter table is
// compared with, or refilled from, the same grouping of its rows that 0010 used for its backfill.

interface CounterTable {
  table: string;
  /** The columns after company_id, and how each is taken from a row of `source`. */
  keys: readonly (readonly [column: string, fromRow: string])[];
  source: string;
  /** The company a row is counted under (global customers: 0). */
  company: string;
  /** Which rows of `source` are counted. */
  where: string;
}

const UPDATED_ON = ['updated_on', "(updated_at at time zone 'UTC')::date"] as const;

export const COUNTER_TABLES: readonly CounterTable[] = [
  {
    table: 'invoice_counts',
    keys: [
      ['status', 'status'],
      ['invoice_date', 'invoice_date'],
    ],
    source: 'invoices',
    company: 'company_id',
    where: 'true',
  },
  {
    table: 'invoice_update_counts',
    keys: [['status', 'status'], UPDATED_ON],
    source: 'invoices',
    company: 'company_id',
    where: 'true',
  },
  {
    table: 'customer_counts',
    keys: [['type', 'type'], UPDATED_ON],
    source: 'customers',
    company: 'coalesce(company_id, 0)',
    where: 'true',
  },
  {
    table: 'product_counts',
    keys: [['type', 'type'], ['is_for_sale', 'is_for_sale'], UPDATED_ON],
    source: 'products',
    company: 'company_id',
    where: 'true',
  },
  {
    table: 'receipt_counts',
    keys: [['payment_date', "coalesce(payment_date, '-infinity')"]],
    source: 'payments',
    company: 'company_id',
    where: "kind = 'receipt' and invoice_id is not null",
  },
];

/** The tables whose writes move the counters: the lock 0010 took for its backfill. */
export const LOCK_COUNTED_TABLES = sql.raw(
  'lock table invoices, customers, products, payments in share mode',
);

/** `select company_id, <keys>, count` of what the rows say (of one company, if given). */
function recount(counter: CounterTable, companyId: number | undefined): SQL {
  const columns = counter.keys.map(([column, fromRow]) => `${fromRow} as ${column}`).join(', ');
  const groups = counter.keys.map((_, i) => i + 2).join(', ');
  const company = companyId === undefined ? sql`` : sql` and ${sql.raw(counter.company)} = ${companyId}`;
  return sql`select ${sql.raw(`${counter.company} as company_id, ${columns}, count(*) as count`)}
    from ${sql.raw(counter.source)} where ${sql.raw(counter.where)}${company}
    group by ${sql.raw(`1, ${groups}`)}`;
}

/** A counter row that disagrees with its rows (a missing counter row counts 0). */
export interface CounterDifference {
  counter: string;
  company_id: number;
  /** The counter's other columns, as text (`-infinity`: a receipt without a date). */
  key: Record<string, string>;
  counted: number;
  rows: number;
}

/** Every difference between one counter table and its rows, in the order of its key. */
export async function counterDifferences(
  db: Database,
  counter: CounterTable,
  companyId: number | undefined,
): Promise<CounterDifference[]> {
  const names = counter.keys.map(([column]) => column);
  const company = companyId === undefined ? sql`` : sql` and company_id = ${companyId}`;
  const kept = sql`select company_id, ${sql.raw(names.join(', '))}, count
    from ${sql.raw(counter.table)} where count <> 0${company}`;
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`select company_id, ${sql.raw(names.map((name) => `${name}::text as ${name}`).join(', '))},
        coalesce(kept.count, 0)::text as counted, coalesce(actual.count, 0)::text as rows
      from (${kept}) kept full join (${recount(counter, companyId)}) actual
        using (company_id, ${sql.raw(names.join(', '))})
      where coalesce(kept.count, 0) <> coalesce(actual.count, 0)
      order by company_id, ${sql.raw(names.join(', '))}`,
  );
  return rows.map((row) => ({
    counter: counter.table,
    company_id: Number(row.company_id),
    key: Object.fromEntries(names.map((name) => [name, String(row[name])])),
    counted: Number(row.counted),
    rows: Number(row.rows),
  }));
}

/**
 * Refills one counter table (of one company, if given) from its rows. The caller holds
 * LOCK_COUNTED_TABLES in the same transaction: no write moves rows or counters meanwhile, and every
 * write that committed before the lock is in the rows counted here. Answers the rows it wrote.
 */
export async function refillCounter(
  db: Database,
  counter: CounterTable,
  companyId: number | undefined,
): Promise<number> {
  const names = counter.keys.map(([column]) => column).join(', ');
  await db.execute(
    companyId === undefined
      ? sql`delete from ${sql.raw(counter.table)}`
      : sql`delete from ${sql.raw(counter.table)} where company_id = ${companyId}`,
  );
  const written = await queryRows<{ written: unknown }>(
    db,
    sql`with refilled as (
        insert into ${sql.raw(counter.table)} (company_id, ${sql.raw(names)}, count)
        ${recount(counter, companyId)} returning 1)
      select count(*)::text as written from refilled`,
  );
  return Number(written[0]?.written ?? 0);
}
