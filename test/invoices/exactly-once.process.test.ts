// Exactly once for POST /invoices across real server processes sharing one PostgreSQL:
// 20 identical requests over two instances, and a server killed (SIGKILL) in the middle of the
// write. PostgreSQL only: several processes cannot share one embedded PGlite directory, and
// PGlite's crash behaviour is that of a single process (covered by its own transaction tests).
import { count } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys, invoiceItems, invoices, products } from '../../src/db/schema.js';
import { createGlobalCustomer } from '../../src/operations/global-customers.js';
import { createTenant, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

describe.runIf(testStorage() === 'postgres')(
  'POST /invoices exactly once across processes (PostgreSQL)',
  () => {
    let database: TestDatabase;
    let tenant: Tenant;
    let body: string;
    const servers: ServerProcess[] = [];

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      const db = database.handle.db;
      tenant = await createTenant(db, { name: 'Loja Exactamente Uma Vez' });
      const customer = await createGlobalCustomer(db, { name: 'Consumidor Final' });
      const [product] = await db
        .insert(products)
        .values({
          companyId: tenant.companyId,
          name: 'Arroz 5kg',
          productCode: 'BEN-000001',
          type: 'GOODS',
          inventory: 'INVENTORY',
          price: '450.00',
          stock: '10',
        })
        .returning();
      body = JSON.stringify({
        customer_id: customer.id,
        invoice_date: '2026-11-20',
        items: [{ product_id: product!.id, quantity: 2, price: 450 }],
      });
    });

    afterAll(async () => {
      for (const server of servers) await server.kill('SIGKILL');
      await database.close();
    });

    const env = () => ({ DATABASE_URL: database.url!, IDEMPOTENCY_LOCK_TIMEOUT_SECONDS: '2' });
    const post = (server: ServerProcess, key: string) =>
      fetch(`${server.baseUrl}/invoices`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.key}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body,
      });
    const countOf = async (table: typeof invoices | typeof invoiceItems) =>
      (await database.handle.db.select({ n: count() }).from(table))[0]?.n ?? 0;

    it('20 identical requests over two server processes create one invoice', async () => {
      const a = await startServerProcess(env());
      const b = await startServerProcess(env());
      servers.push(a, b);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(i % 2 ? a : b, 'two-processes-0001')),
      );
      const bodies = await Promise.all(responses.map((r) => r.text()));
      const statuses = responses.map((r) => r.status);
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      const created = responses.map((r, i) => ({ r, text: bodies[i] })).filter(({ r }) => r.status === 201);
      expect(created.filter(({ r }) => r.headers.get('idempotency-replay') === null)).toHaveLength(1);
      for (const { text } of created) expect(text).toBe(created[0]?.text);
      for (const [i, r] of responses.entries()) {
        if (r.status === 409) {
          expect(JSON.parse(bodies[i]!).error.code).toBe('idempotency_request_in_flight');
          expect(r.headers.get('retry-after')).toBe('2');
        }
      }
      expect(await countOf(invoices)).toBe(1);
      await a.kill();
      await b.kill();
    });

    it('a server killed mid-write leaves nothing half-written, and the retry creates the invoice once', async () => {
      const before = await countOf(invoices);
      const beforeItems = await countOf(invoiceItems);
      const victim = await startServerProcess(env());
      servers.push(victim);

      // Hold the invoices table so the server's write blocks inside its transaction.
      const blocker = new pg.Client({ connectionString: database.url! });
      await blocker.connect();
      await blocker.query('begin');
      await blocker.query('lock table invoices in access exclusive mode');
      const pending = post(victim, 'crash-key-0001').catch((error: unknown) => error);
      const deadline = Date.now() + 15_000;
      for (;;) {
        const { rows } = await blocker.query(
          "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
        );
        if (rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error('the write never reached the locked table');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await victim.kill('SIGKILL');
      expect(await pending).toBeInstanceOf(Error);
      await blocker.query('rollback');
      await blocker.end();

      // Nothing of the invoice exists; the key is held by a dead request.
      expect(await countOf(invoices)).toBe(before);
      expect(await countOf(invoiceItems)).toBe(beforeItems);
      const records = await database.handle.db.select().from(idempotencyKeys);
      expect(records.find((r) => r.key === 'crash-key-0001')?.state).toBe('in_flight');

      const revived = await startServerProcess(env());
      servers.push(revived);
      let response: Response;
      const retryDeadline = Date.now() + 20_000;
      for (;;) {
        response = await post(revived, 'crash-key-0001');
        if (response.status !== 409) break;
        expect((await response.json()).error.code).toBe('idempotency_request_in_flight');
        if (Date.now() > retryDeadline) throw new Error('the dead claim was never taken over');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(response.status).toBe(201);
      const created = await response.text();
      expect(await countOf(invoices)).toBe(before + 1);
      const replay = await post(revived, 'crash-key-0001');
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotency-replay')).toBe('true');
      expect(await replay.text()).toBe(created);
      expect(await countOf(invoices)).toBe(before + 1);
    });
  },
);
