// bin/invoicing lists verify / rebuild, on rows loaded with the triggers off (what
// pg_restore --disable-triggers or a bulk import with session_replication_role = replica leave):
// verify finds the counters short of the rows and exits 1 listing the differences; rebuild,
// while a real server runs and writes race it through the API, repairs them exactly; the API's
// totals then equal count(*) of the rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase, queryRows, sql } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { storageTargetOf } from '../../src/db/target.js';
import {
  apiCall,
  type CliStorage,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runCli,
  runInProcess,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { createTenant, GENEROUS_LIMITS, type Tenant } from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';

const LOADED = { customers: 40, products: 25, invoices: 15 };

interface Verified {
  company_id: number | null;
  exact: boolean;
  difference_count: number;
  counters: { counter: string; differences: number }[];
  differences: {
    counter: string;
    company_id: number;
    key: Record<string, string>;
    counted: number;
    rows: number;
  }[];
}

/** Rows of `company` inserted as a bulk load does it: with the triggers off, so no counter moves. */
async function loadWithTriggersOff(handle: DatabaseHandle, company: number): Promise<void> {
  await handle.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql`insert into customers (company_id, name, type)
      select ${company}, 'Cliente Importado ' || g, case when g % 3 = 0 then 'company' else 'individual' end
      from generate_series(1, ${LOADED.customers}) g`);
    await tx.execute(sql`insert into products (company_id, name, product_code, type, inventory, price)
      select ${company}, 'Produto Importado ' || g, 'IMP-' || g, 'SERVICES', 'NON_INVENTORY', 100
      from generate_series(1, ${LOADED.products}) g`);
    await tx.execute(sql`insert into invoices (company_id, invoice_code, status, invoice_date, due_date)
      select ${company}, 'FT 2025/' || g, 'paid', date '2025-06-01' + g, date '2025-07-01' + g
      from generate_series(1, ${LOADED.invoices}) g`);
  });
}

type Counted = Record<keyof typeof LOADED, number>;

async function countRows(handle: DatabaseHandle, company: number): Promise<Counted> {
  const [row] = await queryRows<Record<string, string>>(
    handle.db,
    sql`select (select count(*) from customers where company_id = ${company} or company_id is null)::text as customers,
      (select count(*) from products where company_id = ${company})::text as products,
      (select count(*) from invoices where company_id = ${company})::text as invoices`,
  );
  return {
    customers: Number(row?.customers),
    products: Number(row?.products),
    invoices: Number(row?.invoices),
  };
}

describe(`lists verify / rebuild on rows loaded with the triggers off (${testStorage()})`, {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  let storage: CliStorage;
  let env: Record<string, string>;
  let server: ServeProcess | undefined;
  let tenant: Tenant;
  let other: Tenant;
  let loaded: Counted;

  beforeAll(async () => {
    storage = await createCliStorage();
    env = { ...storage.env, ...GENEROUS_LIMITS };
    // Loaded before the server opens the database (the embedded one takes a single owner).
    const handle = await openDatabase(storageTargetOf(loadConfig(env), 2));
    try {
      await runMigrations(handle);
      tenant = await createTenant(handle.db, { name: 'Importadora do Búzi, Lda' });
      other = await createTenant(handle.db, { name: 'Vizinha Sem Importação, Lda' });
      await loadWithTriggersOff(handle, tenant.companyId);
      loaded = await countRows(handle, tenant.companyId);
    } finally {
      await handle.close();
    }
  });
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
  });

  it('lists verify finds the rows the counters miss: exit 1, each difference listed, --json', async () => {
    const checked = await runCli(['lists', 'verify', '--json'], env);
    expect(checked.code, checked.stderr).toBe(1);
    const result = JSON.parse(checked.stdout) as Verified;
    expect(result).toMatchObject({ company_id: null, exact: false });
    const customers = result.differences.filter((d) => d.counter === 'customer_counts');
    expect(customers.every((d) => d.company_id === tenant.companyId && d.counted === 0)).toBe(true);
    expect(customers.reduce((sum, d) => sum + d.rows, 0)).toBe(LOADED.customers);
    const invoiceDates = result.differences.filter((d) => d.counter === 'invoice_counts');
    expect(invoiceDates).toHaveLength(LOADED.invoices);
    expect(invoiceDates[0]).toEqual({
      counter: 'invoice_counts',
      company_id: tenant.companyId,
      key: { status: 'paid', invoice_date: '2025-06-02' },
      counted: 0,
      rows: 1,
    });
    expect(result.counters.map((c) => c.counter)).toEqual([
      'invoice_counts',
      'invoice_update_counts',
      'customer_counts',
      'product_counts',
      'receipt_counts',
    ]);
    expect(result.difference_count).toBe(result.differences.length);

    // The text names the differences and the repair; another company is untouched and exact.
    const text = await runInProcess(['lists', 'verify', '--company', String(tenant.companyId)], env);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('customer_counts');
    expect(text.stdout).toContain(`bin/invoicing lists rebuild --company ${tenant.companyId}`);
    const clean = await runInProcess(
      ['lists', 'verify', '--company', String(other.companyId), '--json'],
      env,
    );
    expect(clean.code, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({
      company_id: other.companyId,
      exact: true,
      differences: [],
    });
    // (English asked for: the refusal is asserted in English)
    const missing = await runInProcess(['lists', 'verify', '--company', '999999'], {
      ...env,
      INVOICING_LANG: 'en',
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('company 999999 does not exist');
  });

  it('lists rebuild, while the server runs and API writes race it, makes the totals equal count(*) of the rows', async () => {
    server = await startServe(env);
    const base = server.apiBaseUrl;
    const totals = async () => ({
      customers: (await apiCall(base, tenant.key, '/customers?per_page=1')).body.pagination.total as number,
      products: (await apiCall(base, tenant.key, '/products?per_page=1')).body.pagination.total as number,
      invoices: (await apiCall(base, tenant.key, '/invoices?per_page=1')).body.pagination.total as number,
    });
    // Before: the API counts only what the triggers saw (nothing of the load).
    expect(await totals()).toEqual({ customers: 0, products: 0, invoices: 0 });

    let created = 0;
    let stop = false;
    const writer = async (lane: number) => {
      for (let i = 0; !stop || i < 3; i++) {
        const answer = await apiCall(base, tenant.key, '/customers', {
          method: 'POST',
          body: { name: `Cliente Concorrente ${lane}-${i}` },
          idempotencyKey: `race-${lane}-${i}-${Date.now()}`,
        });
        // A write that waited past its bounded wait for the rebuild's lock is the retryable 503.
        expect([201, 503]).toContain(answer.status);
        if (answer.status === 201) created++;
      }
    };
    const writers = [writer(1), writer(2), writer(3)];
    const rebuilt = await runInProcess(['lists', 'rebuild', '--json'], env);
    stop = true;
    await Promise.all(writers);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const result = JSON.parse(rebuilt.stdout) as { repaired: number; counters: { counter: string }[] };
    expect(result.repaired).toBeGreaterThan(0);
    expect(created).toBeGreaterThan(0);

    const verified = await runInProcess(['lists', 'verify', '--json'], env);
    expect(verified.code, verified.stdout).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ exact: true, difference_count: 0 });
    expect(await totals()).toEqual({
      customers: loaded.customers + created,
      products: loaded.products,
      invoices: loaded.invoices,
    });
    // A filter the counters serve agrees too.
    const companies = await apiCall(base, tenant.key, '/customers?type=company&per_page=1');
    expect(companies.body.pagination.total).toBe(Math.floor(LOADED.customers / 3));
  });
});
