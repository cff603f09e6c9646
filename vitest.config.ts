import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/sequencer.js';

// Projects:
// - `unit`: files named `*.unit.test.ts`, which use no test database (no helpers/database,
//   helpers/context, ...): they run once;
// - `pglite` and `postgres`: every other file runs twice, on the embedded PGlite and on a real
//   PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres), each
//   file on its own fresh database.
// test/suite.unit.test.ts keeps the names honest. A PostgreSQL or Redis that cannot be reached
// fails the run loudly (test/helpers/global-setup.ts).
//
// The files of a worker share one module graph (isolate: false): the project's modules, PGlite's
// WebAssembly among them, are loaded once per worker instead of once per file, which was a third
// of the suite's CPU. A file must leave no global state behind (servers stopped, timers real). A
// file that replaces a module (vi.mock) needs a graph of its own: it runs in `pglite-isolated`
// and `postgres-isolated`, found by its content.
const UNIT = 'test/**/*.unit.test.ts';
// The partner kit (PHP and Python clients, packages) runs with `npm run test:clients`, what a
// deployment ships with `npm run test:deploy`.
// The console's browser tests run with `npm run test:console` (vitest.console.config.ts), and the
// files that start the service's own processes (`*.process.test.ts`: `bin/invoicing`, a server,
// a till, an MCP server) with `npm run test:processes` (vitest.processes.config.ts), so that
// `npm test` stays within its time on 2 cores.
const PROCESS = '**/*.process.test.ts';
const EXCLUDED = [
  ...configDefaults.exclude,
  PROCESS,
  'test/clients/kit/**',
  'test/deploy/**',
  'test/console/browser/**',
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return path.endsWith(join('clients', 'kit')) || path.endsWith(join('test', 'deploy'))
        ? []
        : testFiles(path);
    return entry.name.endsWith('.test.ts') &&
      !entry.name.endsWith('.unit.test.ts') &&
      !entry.name.endsWith('.process.test.ts')
      ? [path]
      : [];
  });
}

const MOCKING = testFiles('test')
  .filter((file) => readFileSync(file, 'utf8').includes('vi.mock('))
  .map((file) => relative('.', file));

const storageProjects = (['pglite', 'postgres'] as const).flatMap((storage) => [
  {
    extends: true as const,
    test: {
      name: storage,
      isolate: false,
      exclude: [...EXCLUDED, UNIT, ...MOCKING],
      env: { TEST_STORAGE: storage },
    },
  },
  ...(MOCKING.length === 0
    ? []
    : [
        {
          extends: true as const,
          test: { name: `${storage}-isolated`, include: MOCKING, env: { TEST_STORAGE: storage } },
        },
      ]),
]);

export default defineConfig({
  test: {
    pool: 'forks',
    // Three files at a time on 2 cores (vitest's default there is one): much of a file's time is
    // spent waiting on PostgreSQL, Redis and the server processes it starts, not on its own CPU.
    maxWorkers: 3,
    testTimeout: 60_000,
    // Hooks start servers and databases: waits for conditions, bounded, slower on a loaded machine.
    hookTimeout: 240_000,
    globalSetup: ['./test/helpers/global-setup.ts'],
    // Longest first, also in a fresh clone that has no durations of an earlier run.
    sequence: { sequencer: LongestFirst },
    exclude: EXCLUDED,
    projects: [
      { extends: true, test: { name: 'unit', isolate: false, include: [UNIT], exclude: EXCLUDED } },
      ...storageProjects,
    ],
  },
});
