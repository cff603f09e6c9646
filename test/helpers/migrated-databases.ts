// The migrated database every test file starts from, made once per set of migrations instead of
// once per file: starting PGlite from a dump skips its initdb and the migrations (about 8 s of CPU
// a file on a loaded machine, 1 s this way), and a PostgreSQL database made from a template is a
// file copy. Both are named after a hash of drizzle/ (and PGlite's version), so a run after a
// change of the migrations makes new ones; other runs (other branches) keep theirs.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import { migrationsFolder, runMigrations } from '../../src/db/migrate.js';
import { TEST_DATABASE_URL } from './services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a PGlite dump (dumpDataDir) of a migrated database. */
    pgliteDump: string;
    /** Name of a migrated PostgreSQL database to create test databases from. */
    postgresTemplate: string;
  }
}

function migrationsHash(): string {
  const hash = createHash('sha256');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]))
      .sort();
  for (const file of files(migrationsFolder))
    hash.update(file.slice(migrationsFolder.length)).update(readFileSync(file));
  const pglite = JSON.parse(
    readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return hash.update(pglite.version).digest('hex').slice(0, 16);
}

async function pgliteDump(hash: string): Promise<string> {
  const path = join(tmpdir(), `partner-api-test-pglite-${hash}.tar`);
  if (existsSync(path)) return path;
  const handle = await openDatabase({ kind: 'pglite', dataDir: null });
  try {
    await runMigrations(handle);
    const client = (handle.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } }).$client;
    const dump = Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, dump);
    renameSync(partial, path); // whole or absent, also for a run that starts at the same time
  } finally {
    await handle.close();
  }
  return path;
}

async function postgresTemplate(hash: string): Promise<string> {
  const name = `partner_api_template_${hash}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1 and datistemplate', [name]);
    if (found.rowCount === 1) return name;
    // Built under another name, then renamed and marked: a template is complete or absent.
    const building = `${name}_${process.pid}`;
    await admin.query(`drop database if exists ${building}`);
    await admin.query(`create database ${building}`);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${building}`;
    const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 });
    try {
      await runMigrations(handle);
    } finally {
      await handle.close();
    }
    try {
      await admin.query(`alter database ${building} rename to ${name}`);
      await admin.query(`alter database ${name} is_template true`);
    } catch (error) {
      // Another run made the same template meanwhile: use theirs.
      await admin.query(`drop database if exists ${building}`);
      const again = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (again.rowCount !== 1) throw error;
    }
    return name;
  } finally {
    await admin.end();
  }
}

export async function prepareMigratedDatabases(): Promise<{ pgliteDump: string; postgresTemplate: string }> {
  const hash = migrationsHash();
  const [dump, template] = await Promise.all([pgliteDump(hash), postgresTemplate(hash)]);
  return { pgliteDump: dump, postgresTemplate: template };
}
