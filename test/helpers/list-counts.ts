// The counters of drizzle/0010_list_counts.sql against a recount of their tables.
import { expect } from 'vitest';
import { type Database, queryRows, sql } from '../../src/db/client.js';

/** Each counter table and the same counts taken from the rows themselves. */
const RECOUNTS = {
  invoice_counts: `select company_id, status, invoice_date, count(*) from invoices group by 1, 2, 3`,
  invoice_update_counts: `select company_id, status, (updated_at at time zone 'UTC')::date, count(*)
    from invoices group by 1, 2, 3`,
  customer_counts: `select coalesce(company_id, 0), type, (updated_at at time zone 'UTC')::date, count(*)
    from customers group by 1, 2, 3`,
  product_counts: `select company_id, type, is_for_sale, (updated_at at time zone 'UTC')::date, count(*)
    from products group by 1, 2, 3, 4`,
  receipt_counts: `select company_id, coalesce(payment_date, '-infinity'), count(*)
    from payments where kind = 'receipt' and invoice_id is not null group by 1, 2`,
};

/** Every counter row (but those at zero) equals a recount of its table, and no row is missing. */
export async function expectCountersExact(db: Database): Promise<void> {
  for (const [table, recount] of Object.entries(RECOUNTS)) {
    const kept = `select * from ${table} where count <> 0`;
    const rows = await queryRows(
      db,
      sql.raw(`(${kept} except all ${recount}) union all (${recount} except all ${kept})`),
    );
    expect(rows, table).toEqual([]);
  }
}
