// Applies the SQL migrations in ./drizzle, the same files for PostgreSQL and PGlite. Several
// instances may start at once: a session advisory lock makes them take turns, and drizzle's
// journal makes the later ones find nothing left to do.
import { fileURLToPath } from 'node:url';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { DatabaseHandle } from './client.js';

export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Arbitrary constant shared by every instance of this service ("inv-migr" in ASCII). */
const MIGRATION_LOCK_KEY = '7596498616489085298';

/** `folder`: the migrations to apply (tests replay history from a copy holding its first files). */
export async function runMigrations(handle: DatabaseHandle, folder = migrationsFolder): Promise<void> {
  if (!handle.pool) {
    // One process owns an embedded database: no other instance can race this one.
    await migratePglite(handle.db as never, { migrationsFolder: folder });
    return;
  }
  const client = await handle.pool.connect();
  try {
    // The pool's request timeouts (src/db/client.ts) are not for migrations: waiting for another
    // instance's turn, or building an index on a large table, may take longer. RESET below gives
    // the connection its own settings back before it returns to the pool.
    await client.query('set statement_timeout = 0; set lock_timeout = 0');
    try {
      await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      try {
        await migrateNodePg(drizzleNodePg({ client }), { migrationsFolder: folder });
      } finally {
        await client.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      }
    } finally {
      await client.query('reset statement_timeout; reset lock_timeout');
    }
  } finally {
    client.release();
  }
}
