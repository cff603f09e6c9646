// `npm run rehearsal:failover:readme [-- FILE]`: deploy/README.md's block of a failover run, made
// from a run's results file (default: the last run's, results/failover/results.json). The file is
// copied to deploy/rehearsal/failover/readme-run.json, which is committed, so that
// test/deploy/failover-readme.unit.test.ts can hold the README to it.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import {
  type FailoverResults,
  README_FILE,
  README_RESULTS_FILE,
  RESULTS_FILE,
  withResults,
} from './results.js';

const source = process.argv[2] ?? RESULTS_FILE;
const results = JSON.parse(readFileSync(source, 'utf8')) as FailoverResults;
writeFileSync(README_FILE, withResults(readFileSync(README_FILE, 'utf8'), results));
if (source !== README_RESULTS_FILE) copyFileSync(source, README_RESULTS_FILE);
process.stdout.write(
  `deploy/README.md: the failover run of ${results.startedAt} (${results.goals.filter((g) => g.met).length} of ${results.goals.length} goals met)\n`,
);
