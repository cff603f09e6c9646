// The small data set of the embedded-PGlite case: a company with a few thousand customers in a
// DATA_DIR of its own under bench/.data. Companies and keys come from bin/invoicing (which opens
// the directory itself when no server runs); the customers from the same SQL as the PostgreSQL
// data set, run on PGlite opened directly (PGlite is single-process: nothing else is open then).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_OPTIONS } from '../../src/db/client.js';
import { invoicing } from '../lib/invoicing-cli.js';
import { dataDir as benchDataDir, ensureDir } from '../lib/paths.js';
import { insertCustomers } from './customers-sql.js';
import { GENERATOR_VERSION } from './marker.js';
import { interleavedTotal } from './sizes.js';
import { DROP_HELPERS, HELPER_FUNCTIONS } from './sql-helpers.js';

export interface PgliteDataset {
  dataDir: string;
  company: number;
  customers: number;
}

async function withPglite<T>(dataDir: string, work: (db: PGlite) => Promise<T>): Promise<T> {
  const db = new PGlite({ ...PGLITE_OPTIONS, dataDir });
  await db.waitReady;
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

export async function ensurePgliteDataset(
  customers: number,
  log: (line: string) => void,
): Promise<PgliteDataset> {
  const dataDir = `${ensureDir(benchDataDir)}/pglite-${customers}`;
  const markerFile = `${dataDir}/bench-dataset.json`;
  if (existsSync(markerFile)) {
    const marker = JSON.parse(readFileSync(markerFile, 'utf8')) as PgliteDataset & { version: number };
    if (marker.version === GENERATOR_VERSION) return marker;
  }
  log(`Building the PGlite data set in ${dataDir} (${customers} customers)`);
  rmSync(dataDir, { recursive: true, force: true });
  const target = { dataDir };
  const main = await invoicing<{ id: number }>(target, [
    'companies',
    'create',
    '--name',
    'Mercearia Índico, Lda',
  ]);
  const noise = await invoicing<{ id: number }>(target, [
    'companies',
    'create',
    '--name',
    'Bazar Licuáti, EI',
  ]);
  await invoicing(target, ['companies', 'enable-api', String(main.id)]);
  await withPglite(dataDir, async (db) => {
    for (const statement of HELPER_FUNCTIONS) await db.exec(statement);
    const base = (await db.query<{ id: number }>('select coalesce(max(id), 0)::int as id from customers'))
      .rows[0]!.id;
    const layout = { mainCompany: main.id, noiseCompany: noise.id, total: interleavedTotal(customers), base };
    await db.exec(insertCustomers(layout));
    await db.exec(
      `select setval(pg_get_serial_sequence('customers', 'id'), (select max(id) from customers))`,
    );
    await db.exec(DROP_HELPERS);
    await db.exec('analyze');
  });
  const dataset = { dataDir, company: main.id, customers };
  writeFileSync(markerFile, JSON.stringify({ ...dataset, version: GENERATOR_VERSION }));
  return dataset;
}

/** The company's customer ids, one a line, for the load generator. */
export async function writePgliteCustomerIds(dataset: PgliteDataset, file: string): Promise<void> {
  const ids = await withPglite(dataset.dataDir, (db) =>
    db.query<{ id: number }>('select id from customers where company_id = $1 order by id', [dataset.company]),
  );
  writeFileSync(file, `${ids.rows.map((row) => row.id).join('\n')}\n`);
}
