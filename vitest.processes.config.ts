import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/sequencer.js';

// `npm run test:processes`: the files that start the service's own processes (`bin/invoicing`
// commands, `serve`, servers killed mid-write, tills, the MCP server over stdio), named
// `*.process.test.ts` and kept out of `npm test` for their time (each process loads the service,
// and on PGlite its WebAssembly, anew). Like every test of the repository they run on the embedded
// PGlite and on PostgreSQL, each file on its own fresh database.
const PROCESS = ['test/**/*.process.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Much of a file's time is spent waiting on the processes it starts, not on its own CPU.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 240_000,
    globalSetup: ['./test/helpers/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'pglite', isolate: false, include: PROCESS, env: { TEST_STORAGE: 'pglite' } },
      },
      {
        extends: true,
        test: { name: 'postgres', isolate: false, include: PROCESS, env: { TEST_STORAGE: 'postgres' } },
      },
    ],
  },
});
