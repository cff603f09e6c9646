// npm run docs:build: the docs site (guide, error catalog, API reference) into docs/dist.
import { loadConfig } from '../src/config.js';
import { buildDocs } from '../src/docs/build.js';

const config = loadConfig(process.env);
const result = await buildDocs(config.docsUrl);
console.log(`docs built in ${result.dir} (${result.ms} ms); doc_url base ${config.docsUrl}`);
