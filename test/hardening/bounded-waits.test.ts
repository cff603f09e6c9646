// Every wait on PostgreSQL is bounded: the session settings are applied to each connection, a
// request that cannot get a connection answers a clean 503 instead of hanging, and a write stuck
// behind a row lock gives up after the lock timeout with a 503, its Idempotency-Key free again.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase, queryRows, sql } from '../../src/db/client.js';
import { storageTargetOf } from '../../src/db/target.js';
import { checkConformance } from '../helpers/conformance.js';
import { api, createTenant, GENEROUS_LIMITS, TEST_DOCS_URL, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { createCustomer } from '../helpers/invoices.js';

describe.runIf(testStorage() === 'postgres')('bounded database waits (PostgreSQL)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;

  const config = () =>
    loadConfig({
      DOCS_URL: TEST_DOCS_URL,
      ...GENEROUS_LIMITS,
      DATABASE_URL: database.url!,
      DB_STATEMENT_TIMEOUT_MS: '7000',
      DB_LOCK_TIMEOUT_MS: '300',
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '9000',
      DB_POOL_ACQUIRE_TIMEOUT_MS: '300',
    });

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    tenant = await createTenant(database.handle.db);
    handle = await openDatabase(storageTargetOf(config(), 2));
    // Its answers are checked against openapi.json like every other test's (the 503 included).
    app = checkConformance(await buildApp({ config: config(), database: handle, logger: false }));
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
    await database.close();
  });

  it('applies the timeouts from the environment to every connection', async () => {
    const rows = await queryRows<Record<string, string>>(
      handle.db,
      sql`select current_setting('statement_timeout') as statement,
                 current_setting('lock_timeout') as lock,
                 current_setting('idle_in_transaction_session_timeout') as idle`,
    );
    expect(rows[0]).toEqual({ statement: '7s', lock: '300ms', idle: '9s' });
  });

  it('answers 503 with Retry-After when no connection frees up in time', async () => {
    const held = await Promise.all([handle.pool!.connect(), handle.pool!.connect()]);
    try {
      const res = await api(app, 'GET', '/customers', { key: tenant.key });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(res.json()).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'Service Unavailable',
      });
    } finally {
      for (const client of held) client.release();
    }
    expect((await api(app, 'GET', '/ping', { key: tenant.key })).statusCode).toBe(200);
  });

  it('gives up a write stuck behind a row lock, leaving its key free for the retry', async () => {
    const customerId = await createCustomer(app, tenant, 'Linha Bloqueada');
    const blocker = new pg.Client({ connectionString: database.url! });
    await blocker.connect();
    const put = () =>
      api(app, 'PUT', `/customers/${customerId}`, {
        key: tenant.key,
        idempotencyKey: 'row-lock-wait-0001',
        body: { name: 'Depois do Bloqueio' },
      });
    try {
      await blocker.query('begin');
      await blocker.query('select id from customers where id = $1 for update', [customerId]);
      const stuck = await put();
      expect(stuck.statusCode).toBe(503);
      expect(stuck.headers['retry-after']).toBe('2');
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    const retry = await put();
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotency-replay']).toBeUndefined();
    expect(retry.json().data.name).toBe('Depois do Bloqueio');
  });
});
