// Opens the one database the service uses: PostgreSQL through a pool when a URL is given,
// otherwise the embedded PGlite persisted in a directory (or in memory, for tests).
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import * as schema from './schema.js';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export type StorageTarget =
  | { kind: 'postgres'; url: string; poolSize?: number }
  | { kind: 'pglite'; dataDir: string | null /* null: in memory */ };

export interface DatabaseHandle {
  db: Database;
  kind: StorageTarget['kind'];
  /** Human description without secrets, for logs and the CLI. */
  description: string;
  /** The node-postgres pool behind `db` (PostgreSQL only), for work that needs one session. */
  pool?: pg.Pool;
  close(): Promise<void>;
}

// Postgres `date` stays 'YYYY-MM-DD' and `numeric` stays a string: never a JS Date or float.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);

export async function openDatabase(target: StorageTarget): Promise<DatabaseHandle> {
  if (target.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10 });
    // A broken idle connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = drizzleNodePg({ client: pool, schema }) as unknown as Database;
    const url = new URL(target.url);
    return {
      db,
      kind: 'postgres',
      description: `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`,
      pool,
      close: () => pool.end(),
    };
  }
  if (target.dataDir) mkdirSync(target.dataDir, { recursive: true });
  const client = target.dataDir ? new PGlite(target.dataDir) : new PGlite();
  await client.waitReady;
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  return {
    db,
    kind: 'pglite',
    description: target.dataDir ? `embedded PGlite in ${target.dataDir}` : 'embedded PGlite in memory',
    close: () => client.close(),
  };
}

/** Rows of a raw `db.execute(sql...)`, whichever driver answered. */
export async function queryRows<T>(db: Database, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export { sql };
