import { defineConfig } from 'vitest/config';

// `npm run test:clients`: the partner kit, kept out of `npm test` (it starts real servers and
// other languages' test runners). The PHP and Python clients' own suites, and every code sample of
// the docs (docs/samples, in curl, TypeScript, PHP and Python), run against a real server on the
// embedded PGlite and on PostgreSQL (like every test of the repository), one server per file and
// storage; the packages are built and installed once. The TypeScript package is built as partners
// get it and its README example compiled against it and run.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 300_000,
    hookTimeout: 180_000,
    globalSetup: ['./test/helpers/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: [
            'test/clients/kit/clients.test.ts',
            'test/clients/kit/offline-queues.test.ts',
            'test/clients/kit/offline-outage.test.ts',
            'test/clients/kit/samples.test.ts',
            'test/clients/kit/typescript-package.test.ts',
            'test/clients/kit/first-import.test.ts',
          ],
          env: { TEST_STORAGE: 'pglite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [
            'test/clients/kit/clients.test.ts',
            'test/clients/kit/offline-queues.test.ts',
            'test/clients/kit/offline-outage.test.ts',
            'test/clients/kit/samples.test.ts',
            'test/clients/kit/typescript-package.test.ts',
            'test/clients/kit/first-import.test.ts',
          ],
          env: { TEST_STORAGE: 'postgres' },
        },
      },
      {
        extends: true,
        // The three clients' transports against servers of the test itself (no storage).
        test: { name: 'edges', include: ['test/clients/kit/transport-edges.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'packages',
          // One at a time: each packs the clients, and packing builds them in place (their dist/).
          fileParallelism: false,
          include: [
            'test/clients/kit/pack.test.ts',
            'test/clients/kit/pack-without-python.test.ts',
            'test/clients/kit/install.test.ts',
            'test/clients/kit/sdk-first-request.test.ts',
          ],
        },
      },
    ],
  },
});
