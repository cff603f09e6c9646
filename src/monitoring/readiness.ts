// Whether this instance can serve: the database answers and has every migration of drizzle/
// applied. Redis is reported but never makes the instance unready: when it is down the rate
// limits count in memory (degraded, still serving).
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { type DatabaseHandle, queryRows, sql } from '../db/client.js';
import { describeDatabaseError } from '../db/errors.js';
import { migrationsFolder } from '../db/migrate.js';
import type { RateLimitStoreState } from '../metrics/registry.js';

export const DATABASE_CHECK_TIMEOUT_MS = 3000;

export interface Readiness {
  status: 'ready' | 'degraded' | 'not_ready';
  checks: {
    database: { ok: boolean; reason?: string };
    rate_limits: { store: RateLimitStoreState; ok: boolean; reason?: string };
  };
}

/** A short reason for a database failure, without SQL or connection strings. */
export function readinessReason(error: unknown): string {
  const verdict = describeDatabaseError(error);
  if (verdict.label === 'not_migrated') return `database not migrated: ${verdict.reason}`;
  if (verdict.kind === 'unavailable' || verdict.kind === 'setup' || verdict.kind === 'retryable')
    return `database unreachable: ${verdict.reason}`;
  return 'database unreachable';
}

/** The newest migration of drizzle/, read once: what a migrated database has applied last. */
let newestMigration: number | null = null;
function newestMigrationMillis(): number {
  newestMigration ??= Math.max(0, ...readMigrationFiles({ migrationsFolder }).map((m) => m.folderMillis));
  return newestMigration;
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function checkDatabase(
  handle: DatabaseHandle,
  timeoutMs = DATABASE_CHECK_TIMEOUT_MS,
): Promise<{ ok: boolean; reason?: string }> {
  const query = queryRows<{ last: string | null }>(
    handle.db,
    sql`select max(created_at)::text as last from drizzle.__drizzle_migrations`,
  );
  let rows: { last: string | null }[];
  try {
    rows = await withTimeout(query, timeoutMs);
  } catch (error) {
    query.catch(() => {}); // the late answer of a timed-out check is of no interest
    if (error instanceof Error && error.message === 'timeout') {
      return { ok: false, reason: `database unreachable: no answer within ${timeoutMs / 1000} s` };
    }
    return { ok: false, reason: readinessReason(error) };
  }
  const last = Number(rows[0]?.last ?? 0);
  if (last < newestMigrationMillis()) {
    return { ok: false, reason: 'database not migrated: run bin/invoicing migrate (or start serve)' };
  }
  return { ok: true };
}

export async function readiness(
  handle: DatabaseHandle,
  storeState: () => RateLimitStoreState,
): Promise<Readiness> {
  const database = await checkDatabase(handle);
  const store = storeState();
  const rateLimits =
    store === 'redis-fallback'
      ? { store, ok: false, reason: 'Redis unreachable: rate limits count in this instance only' }
      : { store, ok: true };
  const status = !database.ok ? 'not_ready' : rateLimits.ok ? 'ready' : 'degraded';
  return { status, checks: { database, rate_limits: rateLimits } };
}
