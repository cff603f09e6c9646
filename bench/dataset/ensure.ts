// Makes sure the data set of N invoices exists in database partner_bench_<N>: reuses a complete
// one, otherwise builds it: schema by the project's migrations, companies / taxes / global
// customers by bin/invoicing, everything else by set-based SQL, then VACUUM ANALYZE.
import type pg from 'pg';
import { type CliTarget, invoicing } from '../lib/invoicing-cli.js';
import {
  benchDatabaseName,
  createDatabase,
  databaseExists,
  databaseUrl,
  dropDatabase,
  withClient,
} from '../lib/postgres.js';
import { dropSecondaryIndexesAndForeignKeys, recreate } from './bulk-load.js';
import { insertCustomers } from './customers-sql.js';
import {
  CREATE_LINES,
  CREATE_TOTALS,
  INSERT_INVOICES,
  INSERT_ITEMS,
  type InvoiceInputs,
} from './invoices-sql.js';
import { CREATE_MARKER, type DatasetInfo, GENERATOR_VERSION, readMarker } from './marker.js';
import { insertPayments, resetSerial, SEQUENCES } from './payments-sql.js';
import { insertCategories, insertCategoryLinks, insertProducts } from './products-sql.js';
import { interleavedTotal, mainCount, noiseCount, sizesFor } from './sizes.js';
import { DROP_HELPERS, HELPER_FUNCTIONS, type Layout } from './sql-helpers.js';

export const TAX_RATE = 16;

const LOADED_TABLES = [
  'customers',
  'products',
  'product_categories',
  'product_category_links',
  'invoices',
  'invoice_items',
  'payments',
];

export type Log = (line: string) => void;

async function timed(log: Log, label: string, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function maxId(client: pg.Client, table: string): Promise<number> {
  const result = await client.query(`select coalesce(max(id), 0)::int as id from ${table}`);
  return result.rows[0].id;
}

async function databaseSize(client: pg.Client): Promise<number> {
  const result = await client.query('select pg_database_size(current_database())::bigint as size');
  return Number(result.rows[0].size);
}

/** Companies, taxes and global customers through the operator command line. */
async function createOwners(target: CliTarget, log: Log) {
  await timed(log, 'migrations (bin/invoicing migrate)', () => invoicing(target, ['migrate']));
  const main = await invoicing<{ id: number }>(target, [
    'companies',
    'create',
    '--name',
    'Distribuidora Zambeze, Lda',
    '--nuit',
    '400123456',
  ]);
  const noise = await invoicing<{ id: number }>(target, [
    'companies',
    'create',
    '--name',
    'Papelaria e Livraria Chimoio, Lda',
    '--nuit',
    '401987654',
  ]);
  for (const company of [main, noise])
    await invoicing(target, ['companies', 'enable-api', String(company.id)]);
  const taxes: number[] = [];
  for (const company of [main, noise]) {
    const tax = await invoicing<{ id: number }>(target, [
      'taxes',
      'create',
      '--company',
      String(company.id),
      '--name',
      `IVA ${TAX_RATE}%`,
      '--rate',
      String(TAX_RATE),
    ]);
    taxes.push(tax.id);
  }
  const globals = [
    ['Consumidor Final', '999999999'],
    ['Cliente Diverso', '999999998'],
    ['Estado Moçambicano — Compras Públicas', '500000001'],
  ];
  for (const [name, nuit] of globals) {
    await invoicing(target, ['customers', 'create', '--global', '--name', name!, '--nuit', nuit!]);
  }
  return { mainCompany: main.id, noiseCompany: noise.id, mainTax: taxes[0]!, noiseTax: taxes[1]! };
}

async function load(client: pg.Client, invoices: number, log: Log) {
  const owners = await client.query(
    `select (select min(id) from companies) as main, (select max(id) from companies) as noise,
       (select array_agg(id order by id) from customers where company_id is null) as globals,
       (select min(id) from taxes) as main_tax, (select max(id) from taxes) as noise_tax`,
  );
  const { main, noise, globals, main_tax: mainTax, noise_tax: noiseTax } = owners.rows[0];
  const sizes = sizesFor(invoices);
  const layout = async (table: string, mainRows: number): Promise<Layout> => ({
    mainCompany: main,
    noiseCompany: noise,
    total: interleavedTotal(mainRows),
    base: await maxId(client, table),
  });

  for (const statement of HELPER_FUNCTIONS) await client.query(statement);
  await client.query(`set work_mem = '512MB'`);
  await client.query(`set maintenance_work_mem = '1GB'`);
  await client.query('set synchronous_commit = off');
  const saved = await dropSecondaryIndexesAndForeignKeys(client, LOADED_TABLES);

  const customers = await layout('customers', sizes.customers);
  await timed(log, `customers (${customers.total})`, () => client.query(insertCustomers(customers)));
  const products = await layout('products', sizes.products);
  await timed(log, `products (${products.total})`, () =>
    client.query(insertProducts(products, { mainTax, noiseTax })),
  );
  const categoryBase = await maxId(client, 'product_categories');
  await timed(log, 'categories', async () => {
    await client.query(insertCategories(categoryBase, main, noise));
    await client.query(insertCategoryLinks(products, categoryBase));
  });

  const input: InvoiceInputs = {
    invoices: await layout('invoices', sizes.invoices),
    customers,
    products,
    itemBase: await maxId(client, 'invoice_items'),
    globalCustomers: globals,
    taxRate: TAX_RATE,
  };
  await client.query('drop table if exists bench.lines, bench.invoice_totals');
  await timed(log, 'invoice lines (staging)', () => client.query(CREATE_LINES(input)));
  await timed(log, 'invoice totals (staging)', () => client.query(CREATE_TOTALS(input)));
  await timed(log, `invoices (${input.invoices.total})`, () => client.query(INSERT_INVOICES(input)));
  await timed(log, 'invoice items', () => client.query(INSERT_ITEMS(input)));
  await client.query('drop table bench.lines, bench.invoice_totals');
  const movements = interleavedTotal(sizes.movements);
  await timed(log, 'receipts, salaries, supplier payments', async () =>
    client.query(insertPayments(input.invoices, movements, await maxId(client, 'payments'))),
  );
  for (const statement of SEQUENCES) await client.query(statement);
  for (const table of LOADED_TABLES.filter((name) => name !== 'product_category_links')) {
    await client.query(resetSerial(table));
  }
  await timed(log, `indexes and foreign keys (${saved.indexes.length} + ${saved.foreignKeys.length})`, () =>
    recreate(client, saved),
  );
  await client.query(DROP_HELPERS);
  await timed(log, 'VACUUM ANALYZE', () => client.query('vacuum analyze'));
  return { main, noise };
}

async function countRows(client: pg.Client, company: number): Promise<Record<string, number>> {
  const result = await client.query(
    `select
       (select count(*) from invoices where company_id = $1)::int as invoices,
       (select count(*) from invoice_items where company_id = $1)::int as invoice_items,
       (select count(*) from customers where company_id = $1)::int as customers,
       (select count(*) from customers where company_id is null)::int as global_customers,
       (select count(*) from products where company_id = $1)::int as products,
       (select count(*) from payments where company_id = $1 and kind = 'receipt')::int as receipts,
       (select count(*) from payments where company_id = $1 and kind <> 'receipt')::int as movements,
       (select count(*) from invoices where company_id <> $1)::int as noise_invoices`,
    [company],
  );
  return result.rows[0];
}

export interface EnsureOptions {
  invoices: number;
  fresh: boolean;
  log: Log;
}

export async function ensureDataset({ invoices, fresh, log }: EnsureOptions): Promise<DatasetInfo> {
  const database = benchDatabaseName(invoices);
  const url = databaseUrl(database);
  if (!fresh && (await databaseExists(database))) {
    const existing = await withClient(url, async (client) => ({
      marker: await readMarker(client),
      size: await databaseSize(client),
    }));
    if (existing.marker) {
      log(`Data set ${database} exists and is complete: reused (--fresh rebuilds it).`);
      return { ...existing.marker, database, url, sizeBytes: existing.size };
    }
    log(`Data set ${database} is incomplete or from an older generator: rebuilding it.`);
  }
  const started = performance.now();
  log(`Generating ${database}: ${invoices} invoices (${JSON.stringify(sizesFor(invoices))})`);
  await dropDatabase(database);
  await createDatabase(database);
  const owners = await createOwners({ databaseUrl: url }, log);
  return withClient(url, async (client) => {
    await load(client, invoices, log);
    const counts = await countRows(client, owners.mainCompany);
    const seconds = (performance.now() - started) / 1000;
    await client.query(CREATE_MARKER);
    await client.query(
      'insert into bench.dataset (invoices, generator_version, main_company, noise_company, counts, generated_seconds) values ($1, $2, $3, $4, $5, $6)',
      [invoices, GENERATOR_VERSION, owners.mainCompany, owners.noiseCompany, counts, seconds.toFixed(1)],
    );
    const sizeBytes = await databaseSize(client);
    log(
      `Generated in ${seconds.toFixed(0)} s, ${(sizeBytes / 1024 ** 3).toFixed(2)} GB: ${JSON.stringify(counts)}`,
    );
    return {
      database,
      url,
      invoices,
      mainCompany: owners.mainCompany,
      noiseCompany: owners.noiseCompany,
      counts,
      generatedSeconds: seconds,
      sizeBytes,
    };
  });
}

/** Counts of a main-company table for interleaved layouts (used by the PGlite data set too). */
export { mainCount, noiseCount };
