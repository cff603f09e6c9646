// npm run api:compat [-- FILE]: compares FILE (openapi.json by default; openapi.en.json the same
// way) with the released description of v1 kept in api/baseline/, and fails on any change the
// compatibility policy calls breaking (docs/site/en/compatibility.md), naming each at its JSON path.
// The baseline changes only with a new major version.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compareDocuments } from './api-compat/compare.js';

const BASELINE = new URL('../api/baseline/openapi-1.0.0.json', import.meta.url);

const file = resolve(process.argv[2] ?? 'openapi.json');
const read = (path: string | URL) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const findings = compareDocuments(read(BASELINE), read(file));
if (findings.length === 0) {
  console.log(`${file}: no breaking change against api/baseline/openapi-1.0.0.json`);
} else {
  for (const { path, message } of findings) console.error(`${path}: ${message}`);
  console.error(
    `${file}: ${findings.length} breaking change(s) against the v1 baseline (docs/site/en/compatibility.md)`,
  );
  process.exitCode = 1;
}
