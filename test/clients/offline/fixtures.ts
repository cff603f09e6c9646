// Shared by the offline queue's tests: a store directory of the test's own, and reading what the
// server holds (invoices by reference, idempotency records expired as 24 hours would).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../../src/db/client.js';
import { idempotencyKeys, invoices } from '../../../src/db/schema.js';

export async function storeDirectory(): Promise<{ path: string; remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'offline-queue-'));
  return { path: join(root, 'till'), remove: () => rm(root, { recursive: true, force: true }) };
}

/** The company's invoices with these references: reference to the rows (ids and customers). */
export async function invoicesByReference(
  db: Database,
  companyId: number,
  references: string[],
): Promise<Map<string, { id: number; customerId: number | null }[]>> {
  const found = new Map<string, { id: number; customerId: number | null }[]>();
  for (let i = 0; i < references.length; i += 500) {
    const rows = await db
      .select({ id: invoices.id, customerId: invoices.customerId, reference: invoices.reference })
      .from(invoices)
      .where(
        and(eq(invoices.companyId, companyId), inArray(invoices.reference, references.slice(i, i + 500))),
      );
    for (const row of rows) {
      const list = found.get(row.reference) ?? [];
      list.push({ id: row.id, customerId: row.customerId });
      found.set(row.reference, list);
    }
  }
  return found;
}

/** What 24 hours do to the server's idempotency records: each key of the company is forgotten. */
export async function expireIdempotencyKeys(db: Database, companyId: number): Promise<number> {
  const rows = await db
    .update(idempotencyKeys)
    .set({ expiresAt: sql`now() - interval '1 second'` })
    .where(eq(idempotencyKeys.companyId, companyId))
    .returning({ id: idempotencyKeys.id });
  return rows.length;
}

/** A queue's clock that the test moves on. */
export function testClock(): { now: () => number; advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

export const HOUR_MS = 60 * 60 * 1000;
