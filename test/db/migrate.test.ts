// Migrations: several instances starting at once take turns under the advisory lock, and each
// migration is applied exactly once; the same files build the embedded database.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase, queryRows, sql } from '../../src/db/client.js';
import { migrationsFolder, runMigrations } from '../../src/db/migrate.js';
import { createEmptyPostgresDatabase, testStorage } from '../helpers/database.js';
import { expectCountersExact } from '../helpers/list-counts.js';

const migrationFiles = readdirSync(migrationsFolder).filter((name) => name.endsWith('.sql'));

/**
 * A database of the current storage with the migrations before `tag` only (from a copy of the
 * folder whose journal stops there), given to `work`; dropped afterwards.
 */
async function withHistoryBefore(
  tag: string,
  work: (handle: DatabaseHandle) => Promise<void>,
): Promise<void> {
  const before = mkdtempSync(join(tmpdir(), 'migrations-'));
  cpSync(migrationsFolder, before, { recursive: true });
  const journalFile = join(before, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
  journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < tag);
  writeFileSync(journalFile, JSON.stringify(journal));
  const empty = testStorage() === 'postgres' ? await createEmptyPostgresDatabase() : null;
  const handle = await openDatabase(
    empty ? { kind: 'postgres', url: empty.url } : { kind: 'pglite', dataDir: null },
  );
  try {
    await runMigrations(handle, before);
    await work(handle);
  } finally {
    await handle.close();
    await empty?.drop();
    rmSync(before, { recursive: true, force: true });
  }
}

describe('migrations', () => {
  it.runIf(testStorage() === 'postgres')(
    'run once when four instances start together on an empty database',
    async () => {
      const empty = await createEmptyPostgresDatabase();
      const handles = await Promise.all(
        Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url: empty.url, poolSize: 2 })),
      );
      try {
        await Promise.all(handles.map((handle) => runMigrations(handle)));
        const applied = await queryRows<{ n: number }>(
          handles[0]!.db,
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        expect(applied[0]?.n).toBe(migrationFiles.length);
        await runMigrations(handles[1]!);
        const tables = await queryRows<{ n: number }>(
          handles[0]!.db,
          sql`select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
        );
        expect(tables[0]?.n).toBeGreaterThanOrEqual(14);
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
        await empty.drop();
      }
    },
  );

  it.runIf(testStorage() === 'postgres')(
    "wait for another instance's turn past the pool's lock timeout, then give the connection its settings back",
    async () => {
      const empty = await createEmptyPostgresDatabase();
      const timeouts = {
        statementTimeoutMs: 30_000,
        lockTimeoutMs: 200,
        idleInTransactionTimeoutMs: 30_000,
        poolAcquireTimeoutMs: 5_000,
      };
      const handle = await openDatabase({ kind: 'postgres', url: empty.url, poolSize: 1, timeouts });
      const other = new pg.Client({ connectionString: empty.url });
      await other.connect();
      try {
        // Another instance holds the migration lock for longer than the lock timeout.
        await other.query('select pg_advisory_lock(7596498616489085298)');
        const migrating = runMigrations(handle);
        await new Promise((resolve) => setTimeout(resolve, 800));
        await other.query('select pg_advisory_unlock(7596498616489085298)');
        await migrating;
        const settings = await queryRows<{ lock: string; statement: string }>(
          handle.db,
          sql`select current_setting('lock_timeout') as lock, current_setting('statement_timeout') as statement`,
        );
        expect(settings[0]).toEqual({ lock: '200ms', statement: '30s' });
      } finally {
        await other.end();
        await handle.close();
        await empty.drop();
      }
    },
  );

  it.runIf(testStorage() === 'pglite')(
    'build the embedded database from the same files, idempotently',
    async () => {
      const handle = await openDatabase({ kind: 'pglite', dataDir: null });
      try {
        await runMigrations(handle);
        await runMigrations(handle);
        const applied = await queryRows<{ n: number }>(
          handle.db,
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        expect(applied[0]?.n).toBe(migrationFiles.length);
        const folded = await queryRows<{ v: string }>(
          handle.db,
          sql`select search_fold('JOÃO Conceição') as v`,
        );
        expect(folded[0]?.v).toBe('joao conceicao');
      } finally {
        await handle.close();
      }
    },
  );

  it('0006 stops, naming the rows, when a payment is linked to an invoice of another company', async () => {
    // The history up to 0005 in a folder of its own, then a crossed receipt, then 0006.
    await withHistoryBefore('0006', async (handle) => {
      const tenants = await queryRows<{ id: number }>(
        handle.db,
        sql`insert into companies (name) values ('A'), ('B') returning id`,
      );
      const [a, b] = tenants.map((row) => row.id);
      const [customer] = await queryRows<{ id: number }>(
        handle.db,
        sql`insert into customers (company_id, name) values (${b}, 'Cliente B') returning id`,
      );
      const [invoice] = await queryRows<{ id: number }>(
        handle.db,
        sql`insert into invoices (company_id, customer_id, invoice_code, status, invoice_date, due_date)
            values (${b}, ${customer!.id}, 'FT B/1', 'unpaid', '2026-11-01', '2026-12-01') returning id`,
      );
      const [crossed] = await queryRows<{ id: number }>(
        handle.db,
        sql`insert into payments (company_id, kind, invoice_id, payment_code, amount)
            values (${a}, 'receipt', ${invoice!.id}, 'RC A/1', 1) returning id`,
      );
      const failure = await runMigrations(handle).then(
        () => null,
        (error: Error) => error,
      );
      const reason = (failure?.cause as Error | undefined)?.message ?? failure?.message;
      expect(reason).toBe(
        `payments linked to an invoice of another company (ids ${crossed!.id}): fix them before migrating`,
      );
      // Nothing of 0006 stayed: its unique index is not there.
      const indexes = await queryRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from pg_indexes where indexname = 'invoices_id_company_key'`,
      );
      expect(indexes[0]?.n).toBe(0);
    });
  });

  it('0010 counts the rows already there and fills the search text of every customer and product', async () => {
    // The history up to 0009 in a folder of its own, rows of every kind, then 0010.
    await withHistoryBefore('0010', async (handle) => {
      const [a, b] = (
        await queryRows<{ id: number }>(
          handle.db,
          sql`insert into companies (name) values ('A'), ('B') returning id`,
        )
      ).map((row) => row.id);
      await handle.db.execute(sql`insert into customers (company_id, name, type, email, updated_at) values
        (${a}, 'João Macuácua', 'individual', 'joao@exemplo.co.mz', '2026-03-01T23:30:00Z'),
        (${a}, 'Águas da Região', 'company', null, '2026-03-02T00:30:00Z'),
        (${b}, 'Cliente B', 'company', null, '2026-03-01T10:00:00Z'),
        (null, 'Consumidor Final', 'individual', null, '2026-01-01T00:00:00Z')`);
      await handle.db.execute(sql`insert into products (company_id, name, product_code, sku, type, inventory, is_for_sale) values
        (${a}, 'Farinha de milho', 'BEN-000001', 'FM-10', 'GOODS', 'INVENTORY', true),
        (${a}, 'Transporte', 'SRV-000001', null, 'SERVICES', 'NON_INVENTORY', false),
        (${b}, 'Papel', 'BEN-000001', null, 'GOODS', 'INVENTORY', true)`);
      const invoices = await queryRows<{ id: number }>(
        handle.db,
        sql`insert into invoices (company_id, invoice_code, status, invoice_date, due_date, updated_at) values
          (${a}, 'FT A/1', 'paid', '2026-03-01', '2026-03-31', '2026-03-05T12:00:00Z'),
          (${a}, 'FT A/2', 'unpaid', '2026-03-01', '2026-03-31', '2026-03-01T12:00:00Z'),
          (${a}, 'RASC-1', 'draft', '2026-03-02', '2026-04-01', '2026-03-02T12:00:00Z'),
          (${b}, 'FT B/1', 'cancelled', '2026-03-01', '2026-03-31', '2026-03-01T12:00:00Z')
          returning id`,
      );
      await handle.db.execute(sql`insert into payments (company_id, kind, invoice_id, payment_code, payment_date) values
        (${a}, 'receipt', ${invoices[0]!.id}, 'RC A/1', '2026-03-05'),
        (${a}, 'receipt', ${invoices[0]!.id}, 'RC A/2', null),
        (${a}, 'salary', null, 'MV A/1', '2026-03-05')`);

      await runMigrations(handle);
      await expectCountersExact(handle.db);
      const [invoiceTotal] = await queryRows<{ n: number }>(
        handle.db,
        sql`select sum(count)::int as n from invoice_counts where company_id = ${a}`,
      );
      expect(invoiceTotal?.n).toBe(3);
      const texts = await queryRows<{ name: string; search_text: string }>(
        handle.db,
        sql`select name, search_text from customers where company_id = ${a} order by id`,
      );
      expect(texts).toEqual([
        { name: 'João Macuácua', search_text: 'joao macuacua\njoao@exemplo.co.mz\n\n' },
        { name: 'Águas da Região', search_text: 'aguas da regiao\n\n\n' },
      ]);
      const [unfilled] = await queryRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from products where search_text is null`,
      );
      expect(unfilled?.n).toBe(0);
    });
  });

  it('0011 gives the events recorded before causes a cause that says it is not known, the rest of the body untouched', async () => {
    await withHistoryBefore('0011', async (handle) => {
      const [company] = await queryRows<{ id: number }>(
        handle.db,
        sql`insert into companies (name) values ('Antiga') returning id`,
      );
      const old = JSON.stringify({
        id: 'evt_000000000000000000000001',
        type: 'customer.created',
        created_at: '2026-11-20T10:00:00.000+02:00',
        data: { id: 7, name: 'Cliente "cause": antigo' },
      });
      await queryRows(
        handle.db,
        sql`insert into webhook_events (public_id, company_id, type, payload)
            values ('evt_000000000000000000000001', ${company!.id}, 'customer.created', ${old})`,
      );
      await runMigrations(handle);
      const [row] = await queryRows<{ payload: string; request_id: string | null }>(
        handle.db,
        sql`select payload, request_id from webhook_events where public_id = 'evt_000000000000000000000001'`,
      );
      expect(row?.payload).toBe(`${old.slice(0, -1)},"cause":{"kind":"system","name":"unknown"}}`);
      expect(JSON.parse(row!.payload).cause).toEqual({ kind: 'system', name: 'unknown' });
      expect(row?.request_id).toBeNull();
    });
  });
});
