// Migrations: several instances starting at once take turns under the advisory lock, and each
// migration is applied exactly once; the same files build the embedded database.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase, queryRows, sql } from '../../src/db/client.js';
import { migrationsFolder, runMigrations } from '../../src/db/migrate.js';
import { createEmptyPostgresDatabase, testStorage } from '../helpers/database.js';

const migrationFiles = readdirSync(migrationsFolder).filter((name) => name.endsWith('.sql'));

describe('migrations', () => {
  it.runIf(testStorage() === 'postgres')(
    'run once when four instances start together on an empty database',
    async () => {
      const empty = await createEmptyPostgresDatabase();
      const handles = await Promise.all(
        Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url: empty.url, poolSize: 2 })),
      );
      try {
        await Promise.all(handles.map((handle) => runMigrations(handle)));
        const applied = await queryRows<{ n: number }>(
          handles[0]!.db,
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        expect(applied[0]?.n).toBe(migrationFiles.length);
        await runMigrations(handles[1]!);
        const tables = await queryRows<{ n: number }>(
          handles[0]!.db,
          sql`select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
        );
        expect(tables[0]?.n).toBeGreaterThanOrEqual(14);
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
        await empty.drop();
      }
    },
  );

  it.runIf(testStorage() === 'pglite')(
    'build the embedded database from the same files, idempotently',
    async () => {
      const handle = await openDatabase({ kind: 'pglite', dataDir: null });
      try {
        await runMigrations(handle);
        await runMigrations(handle);
        const applied = await queryRows<{ n: number }>(
          handle.db,
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        expect(applied[0]?.n).toBe(migrationFiles.length);
        const folded = await queryRows<{ v: string }>(
          handle.db,
          sql`select search_fold('JOÃO Conceição') as v`,
        );
        expect(folded[0]?.v).toBe('joao conceicao');
      } finally {
        await handle.close();
      }
    },
  );
});
