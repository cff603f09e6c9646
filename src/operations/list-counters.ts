// bin/invoicing lists verify / rebuild: the counters behind the lists' totals (drizzle/0010, read by
// src/lists/total.ts) checked against the rows, and rebuilt from them. Rows loaded with the
// triggers off (pg_restore --disable-triggers, session_replication_role = replica, a bulk import)
// are missing from the counters, and the API would answer `total: 0` over them. Each counter table
// is compared with, or refilled from, the same grouping of its rows that 0010 used for its backfill.
import type { SQL } from 'drizzle-orm';
import { type Database, queryRows, sql } from '../db/client.js';
import { optionalCompany } from './arguments.js';
import { requireCompany } from './companies.js';
import { define } from './define.js';

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

const COUNTER_TABLES: readonly CounterTable[] = [
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
const LOCK_COUNTED_TABLES = sql.raw('lock table invoices, customers, products, payments in share mode');

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
async function counterDifferences(
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
async function refillCounter(
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

/** At most this many differences are listed; `difference_count` counts them all. */
export const MAX_LISTED_DIFFERENCES = 200;

export interface CounterCheck {
  counter: string;
  differences: number;
}

export interface VerifyResult {
  /** null: every company (and the global customers, under company 0). */
  company_id: number | null;
  exact: boolean;
  difference_count: number;
  counters: CounterCheck[];
  differences: CounterDifference[];
}

async function verify(db: Database, companyId: number | undefined): Promise<VerifyResult> {
  const found: CounterDifference[] = [];
  const counters: CounterCheck[] = [];
  for (const counter of COUNTER_TABLES) {
    const differences = await counterDifferences(db, counter, companyId);
    counters.push({ counter: counter.table, differences: differences.length });
    found.push(...differences);
  }
  return {
    company_id: companyId ?? null,
    exact: found.length === 0,
    difference_count: found.length,
    counters,
    differences: found.slice(0, MAX_LISTED_DIFFERENCES),
  };
}

export interface RebuildResult {
  company_id: number | null;
  /** What was wrong before the rebuild (found under the lock, so exactly what it repaired). */
  repaired: number;
  counters: { counter: string; differences: number; rows: number }[];
}

export const listCounterOperations = {
  'lists.verify': define({
    reads: true,
    parse: (raw) => ({ companyId: optionalCompany(raw) }),
    run: async ({ db }, args) => {
      if (args.companyId !== undefined) await requireCompany(db, args.companyId);
      return verify(db, args.companyId);
    },
  }),
  'lists.rebuild': define({
    parse: (raw) => ({ companyId: optionalCompany(raw) }),
    // In the operation's transaction, under the lock of 0010's backfill: writes wait (reads go
    // on) until it commits, so a write is either in the rows counted here or counted by its
    // trigger after, never both, never neither.
    run: async ({ db }, args) => {
      if (args.companyId !== undefined) await requireCompany(db, args.companyId);
      await db.execute(LOCK_COUNTED_TABLES);
      const counters: RebuildResult['counters'] = [];
      let repaired = 0;
      for (const counter of COUNTER_TABLES) {
        const differences = (await counterDifferences(db, counter, args.companyId)).length;
        repaired += differences;
        counters.push({
          counter: counter.table,
          differences,
          rows: await refillCounter(db, counter, args.companyId),
        });
      }
      return { company_id: args.companyId ?? null, repaired, counters } satisfies RebuildResult;
    },
    target: (args) => ({ type: 'list_counters', id: null, company: args.companyId ?? null }),
  }),
};
