import { defineConfig } from 'vitest/config';

// `npm run test:console`: the support console in a real browser (Debian's Chromium through
// playwright-core, axe-core), kept out of `npm test` for its time. Like every test of the
// repository it runs on the embedded PGlite and on PostgreSQL. The console's HTTP security and
// role tests (test/console/*.test.ts) are part of `npm test`.
const BROWSER = ['test/console/browser/**/*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['./test/helpers/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'pglite', include: BROWSER, env: { TEST_STORAGE: 'pglite' } } },
      { extends: true, test: { name: 'postgres', include: BROWSER, env: { TEST_STORAGE: 'postgres' } } },
    ],
  },
});
