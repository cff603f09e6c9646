import { configDefaults, defineConfig } from 'vitest/config';

// Every test file runs twice: on the embedded PGlite and on a real PostgreSQL
// (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres). Each file creates its
// own fresh database; a PostgreSQL or Redis that cannot be reached fails the run loudly.
export default defineConfig({
  test: {
    pool: 'forks',
    // Two files at a time even on 2 cores (vitest's default there is one): most of a file's time
    // is spent waiting on PostgreSQL, Redis and the servers it starts, not on the CPU.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['./test/helpers/global-setup.ts'],
    // The partner kit (PHP and Python clients, packages) runs with `npm run test:clients`.
    exclude: [...configDefaults.exclude, 'test/clients/kit/**'],
    projects: [
      { extends: true, test: { name: 'pglite', env: { TEST_STORAGE: 'pglite' } } },
      { extends: true, test: { name: 'postgres', env: { TEST_STORAGE: 'postgres' } } },
    ],
  },
});
