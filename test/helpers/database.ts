// A fresh, migrated database per test file, on the storage the current project runs
// (TEST_STORAGE=pglite: in memory; TEST_STORAGE=postgres: a new database on TEST_DATABASE_URL).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { TEST_DATABASE_URL } from './services.js';

export type TestStorage = 'pglite' | 'postgres';

export function testStorage(): TestStorage {
  const storage = process.env.TEST_STORAGE ?? 'pglite';
  if (storage !== 'pglite' && storage !== 'postgres') throw new Error(`unknown TEST_STORAGE ${storage}`);
  return storage;
}

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The PostgreSQL URL of this database (postgres storage only), for child processes. */
  url: string | null;
  close(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Creates an empty PostgreSQL database and returns its URL (no migrations). */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `partner_api_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}

export async function createTestDatabase(storage: TestStorage = testStorage()): Promise<TestDatabase> {
  if (storage === 'pglite') {
    const handle = await openDatabase({ kind: 'pglite', dataDir: null });
    await runMigrations(handle);
    return { handle, url: null, close: () => handle.close() };
  }
  const empty = await createEmptyPostgresDatabase();
  const handle = await openDatabase({ kind: 'postgres', url: empty.url, poolSize: 20 });
  await runMigrations(handle);
  return {
    handle,
    url: empty.url,
    close: async () => {
      await handle.close();
      await empty.drop();
    },
  };
}
