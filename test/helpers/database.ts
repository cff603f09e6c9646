// A fresh, migrated database per test file, on the storage the current project runs
// (TEST_STORAGE=pglite: in memory; TEST_STORAGE=postgres: a new database on TEST_DATABASE_URL),
// copied from the migrated database the global setup made once (test/helpers/migrated-databases.ts).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { inject } from 'vitest';
import { type DatabaseHandle, openDatabase, sql } from '../../src/db/client.js';
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

/**
 * A copy of the migrated database is a database of its own: its own installation id (the
 * namespace of its rate-limit counters in Redis, src/db/installation.ts), as migrations make it.
 */
async function newInstallation(handle: DatabaseHandle): Promise<void> {
  await handle.db.execute(sql`update installation set id = gen_random_uuid()`);
}

/**
 * Makes `dataDir` (absent or empty) hold a copy of the migrated embedded database, for a server
 * process: its first start then skips creating the cluster (it still finds no company: the demo).
 * Its installation id is the copy's (no server process of the tests counts in Redis).
 */
export async function migratedDataDir(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await promisify(execFile)('tar', ['-xf', inject('pgliteDump'), '-C', dataDir]);
  return dataDir;
}

/** Creates an empty PostgreSQL database (or a copy of `template`) and returns its URL. */
export async function createEmptyPostgresDatabase(
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `partner_api_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}${template ? ` template ${template}` : ''}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(`drop database if exists ${name} with (force)`),
  };
}

export async function createTestDatabase(storage: TestStorage = testStorage()): Promise<TestDatabase> {
  if (storage === 'pglite') {
    const dump = new Blob([readFileSync(inject('pgliteDump'))]);
    const handle = await openDatabase({ kind: 'pglite', dataDir: null, loadDataDir: dump });
    await newInstallation(handle);
    return { handle, url: null, close: () => handle.close() };
  }
  const empty = await createEmptyPostgresDatabase(inject('postgresTemplate'));
  const handle = await openDatabase({ kind: 'postgres', url: empty.url, poolSize: 20 });
  await newInstallation(handle);
  return {
    handle,
    url: empty.url,
    close: async () => {
      await handle.close();
      await empty.drop();
    },
  };
}
