// npm run api:compat [-- [--corrections LIST] FILE...]: compares each FILE (by default openapi.json
// and openapi.en.json) with the released description of v1 kept in api/baseline/, and fails on any
// change the compatibility policy calls breaking (docs/site/en/compatibility.md), naming each at its
// JSON path. A finding whose path the reviewed list of corrections (api/corrections.json) names is
// printed with its reason and accepted; an entry of that list matching no finding fails as stale.
// Every file is checked, and the exit status is 1 if any failed: one command in CI, whose failure
// stops it. The baseline changes only with a new major version.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareDocuments } from './api-compat/compare.js';
import { judge, parseCorrections } from './api-compat/corrections.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BASELINE = resolve(ROOT, 'api/baseline/openapi-1.0.0.json');

const { values, positionals } = parseArgs({
  options: { corrections: { type: 'string', default: resolve(ROOT, 'api/corrections.json') } },
  allowPositionals: true,
});
const files = positionals.length > 0 ? positionals : ['openapi.json', 'openapi.en.json'];
const show = (path: string) => (path.startsWith(ROOT) ? relative(ROOT, path) : path);
const correctionsFile = resolve(values.corrections);
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

let failed = false;
try {
  const corrections = parseCorrections(readFileSync(correctionsFile, 'utf8'), show(correctionsFile));
  const baseline = read(BASELINE);
  for (const file of files.map((name) => resolve(name))) {
    const { breaking, accepted, stale } = judge(compareDocuments(baseline, read(file)), corrections);
    for (const { finding, correction } of accepted)
      console.log(`${finding.path}: ${finding.message} (accepted correction: ${correction.reason})`);
    for (const { path, message } of breaking) console.error(`${path}: ${message}`);
    for (const correction of stale)
      console.error(
        `${show(correctionsFile)}: stale correction ${correction.path}${correction.message ? ` (${correction.message})` : ''}: ${show(file)} has no such finding; remove the entry`,
      );
    const summary = `${show(file)}: ${accepted.length} accepted correction(s) (${show(correctionsFile)})`;
    if (breaking.length === 0 && stale.length === 0) {
      console.log(`${show(file)}: no breaking change against api/baseline/openapi-1.0.0.json`);
      if (accepted.length > 0) console.log(summary);
    } else {
      failed = true;
      console.error(
        `${show(file)}: ${breaking.length} breaking change(s) against the v1 baseline (docs/site/en/compatibility.md), ${stale.length} stale correction(s)`,
      );
    }
  }
} catch (error) {
  console.error((error as Error).message);
  failed = true;
}
if (failed) process.exitCode = 1;
