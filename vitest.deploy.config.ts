import { defineConfig } from 'vitest/config';

// `npm run test:deploy`: what a deployment ships and runs, kept out of `npm test` because it needs
// tools of its own (Debian's promtool, which the script installs first) and builds a whole runtime
// tree (an `npm ci --omit=dev` and the docs): the image's contents started from elsewhere
// (deploy/build-runtime.sh) and the alert rules loaded and unit-tested in Prometheus. Storage plays
// no part in either: each runs once. The rehearsal (`npm run rehearsal`) is the rest of the path to
// production.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 600_000,
    hookTimeout: 180_000,
    include: ['test/deploy/**/*.test.ts'],
  },
});
