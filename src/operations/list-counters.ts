// bin/invoicing lists verify / rebuild: the counters behind the lists' totals (drizzle/0010,
// src/db/list-counts.ts) checked against the rows, and rebuilt from them. Rows loaded with the
// triggers off (pg_restore --disable-triggers, session_replication_role = replica, a bulk import)
// are missing from the counters, and the API would answer `total: 0` over them.
import type { Database } from '../db/client.js';
import {
  COUNTER_TABLES,
  type CounterDifference,
  counterDifferences,
  LOCK_COUNTED_TABLES,
  refillCounter,
} from '../db/list-counts.js';
import { optionalCompany } from './arguments.js';
import { requireCompany } from './companies.js';
import { define } from './define.js';

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
