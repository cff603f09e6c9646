// Whether this instance can serve: the database answers and has every migration of drizzle/
// applied. Redis is reported but never makes the instance unready: when it is down the rate
// limits count in memory (degraded, still serving).
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { type DatabaseHandle, queryRows, sql } from '../db/client.js';
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

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  '3D000': 'the database does not exist',
  '28P01': 'authentication failed',
  '28000': 'authentication failed',
  '57P01': 'the database server is shutting down',
  '57P03': 'the database is starting up',
  '53300': 'too many connections',
};

/** A short reason for a database failure, without SQL or connection strings. */
function reasonOf(error: unknown): string {
  for (let current: unknown = error; current; current = (current as { cause?: unknown }).cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES[code])
      return `database unreachable: ${CONNECTION_CODES[code]}`;
    if (code === '42P01' || code === '3F000') return 'database not migrated: no migration has been applied';
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/terminat|Connection terminated|closed/i.test(message))
    return 'database unreachable: connection closed';
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
    return { ok: false, reason: reasonOf(error) };
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
