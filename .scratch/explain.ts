// Scratch (not committed): first requests of every list case with auto_explain on, plans from the PG log.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { listCases, pathOf } from '../bench/cases/list-cases.js';
import { listParams } from '../bench/cases/list-params.js';
import { getJson } from '../bench/lib/http.js';
import { createKey } from '../bench/lib/invoicing-cli.js';
import { databaseUrl, queryRows, withClient } from '../bench/lib/postgres.js';
import { startApiServer } from '../bench/lib/servers.js';
import { installCleanup, stopAllChildren } from '../bench/lib/children.js';

const database = process.argv[2]!;
const out = process.argv[3]!;
const LOG = '/var/log/postgresql/postgresql-15-main.log';
const url = databaseUrl(database);
installCleanup();
await withClient(url, async (c) => {
  for (const s of [
    `alter database "${database}" set session_preload_libraries = 'auto_explain'`,
    `alter database "${database}" set auto_explain.log_min_duration = 0`,
    `alter database "${database}" set auto_explain.log_analyze = on`,
    `alter database "${database}" set auto_explain.log_buffers = on`,
  ])
    await c.query(s);
});
const company = 1;
const key = await createKey({ databaseUrl: url }, company);
const api = await startApiServer('explain', { databaseUrl: url }, '/tmp/counts-explain-api.log');
const params = await listParams(url, company);
const results: { path: string; ms: number; log: string }[] = [];
for (const listCase of listCases(params)) {
  const path = pathOf(listCase.resource, listCase.query);
  await queryRows(url, `update data_versions set version = version + 1 where company_id = $1`, [company]);
  await new Promise((r) => setTimeout(r, 200));
  const start = statSync(LOG).size;
  const res = await getJson<unknown>(`${api.url}/api/v1/partner${path}`, `Bearer ${key.key}`);
  await new Promise((r) => setTimeout(r, 300));
  const end = statSync(LOG).size;
  const buf = Buffer.alloc(end - start);
  const fd = (await import('node:fs')).openSync(LOG, 'r');
  (await import('node:fs')).readSync(fd, buf, 0, end - start, start);
  results.push({ path, ms: res.ms, log: buf.toString('utf8') });
  process.stdout.write(`${res.status} ${res.ms.toFixed(1)} ms ${path}\n`);
}
await api.stop();
await stopAllChildren();
await withClient(url, (c) => c.query(`alter database "${database}" reset all`));
writeFileSync(out, JSON.stringify(results, null, 1));
process.exit(0);
