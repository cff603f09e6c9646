import { configDefaults, defineConfig } from 'vitest/config';

// Three projects:
// - `unit`: files named `*.unit.test.ts`, which use no test database (no helpers/database,
//   helpers/context, ...): they run once;
// - `pglite` and `postgres`: every other file runs twice, on the embedded PGlite and on a real
//   PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres), each
//   file on its own fresh database.
// test/suite.unit.test.ts keeps the names honest. A PostgreSQL or Redis that cannot be reached
// fails the run loudly (test/helpers/global-setup.ts).
const UNIT = 'test/**/*.unit.test.ts';
// The partner kit (PHP and Python clients, packages) runs with `npm run test:clients`.
const EXCLUDED = [...configDefaults.exclude, 'test/clients/kit/**'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Two files at a time even on 2 cores (vitest's default there is one): most of a file's time
    // is spent waiting on PostgreSQL, Redis and the servers it starts, not on the CPU.
    maxWorkers: 2,
    testTimeout: 60_000,
    // Hooks start servers and databases: waits for conditions, bounded, slower on a loaded machine.
    hookTimeout: 240_000,
    globalSetup: ['./test/helpers/global-setup.ts'],
    exclude: EXCLUDED,
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT], exclude: EXCLUDED } },
      {
        extends: true,
        test: { name: 'pglite', exclude: [...EXCLUDED, UNIT], env: { TEST_STORAGE: 'pglite' } },
      },
      {
        extends: true,
        test: { name: 'postgres', exclude: [...EXCLUDED, UNIT], env: { TEST_STORAGE: 'postgres' } },
      },
    ],
  },
});
