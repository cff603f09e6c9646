// npm run docs:build: the docs site (guide, error catalog, API reference) into docs/dist.
//   --out DIR    into DIR instead (deploy/build-runtime.sh builds the runtime tree's own copy)
//   --if-stale   only when the target was not built from the current sources for this DOCS_URL
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { buildDocs, DOCS_DIST, ensureDocs } from '../src/docs/build.js';

const { values } = parseArgs({ options: { out: { type: 'string' }, 'if-stale': { type: 'boolean' } } });
const config = loadConfig(process.env);
const dir = values.out ?? DOCS_DIST;
const result = values['if-stale']
  ? await ensureDocs(config.docsUrl, dir)
  : await buildDocs(config.docsUrl, dir);
console.log(
  result.built
    ? `docs built in ${result.dir} (${result.ms} ms); doc_url base ${config.docsUrl}`
    : `docs in ${result.dir} are current; doc_url base ${config.docsUrl}`,
);
