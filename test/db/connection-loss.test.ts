// A PostgreSQL connection that breaks while a request holds it (the server restarted or failed
// over, or ended the session) fails that request's queries; it never crashes the process. Found by
// the production rehearsal (deploy/rehearsal/): before, node-postgres emitted the break as an
// 'error' event that nobody listened to on a checked-out client, and the instance died.
// Through a failover (issue 31): a connection that met a server no longer the primary is dropped,
// the request answers the retryable 503, and LISTEN subscribes again once the database is back.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase, queryRows, sql } from '../../src/db/client.js';
import { describeDatabaseError } from '../../src/db/errors.js';
import { executeOperation } from '../../src/operations/index.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/webhooks/worker.js';
import {
  api,
  createTenant,
  GENEROUS_LIMITS,
  newIdempotencyKey,
  operationSetup,
  TEST_DOCS_URL,
  type Tenant,
} from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { TEST_DATABASE_URL } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

describe.runIf(testStorage() === 'postgres')('a connection ended while checked out of the pool', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('fails the holder, keeps the process, and the pool serves the next request', async () => {
    const pool = database.handle.pool!;
    const client = await pool.connect();
    const [row] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
    // Between two queries of a transaction: no query is active when the connection breaks.
    await client.query('begin');
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    await terminate(row!.pid);
    await ended;

    await expect(client.query('select 1')).rejects.toThrow();
    client.release(true);
    const rows = await queryRows<{ one: number }>(database.handle.db, sql`select 1 as one`);
    expect(rows).toEqual([{ one: 1 }]);
  });
});

/** Whether PostgreSQL still has a session with this backend pid. */
async function sessionExists(pid: number): Promise<boolean> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query('select 1 from pg_stat_activity where pid = $1', [pid]);
    return rows.length > 0;
  } finally {
    await admin.end();
  }
}

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(testStorage() === 'postgres')('a server that is no longer the primary, or goes away', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    tenant = await createTenant(database.handle.db);
    const target = new URL(database.url as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(target);
    viaProxy.port = String(proxy.port);
    handle = await openDatabase({ kind: 'postgres', url: viaProxy.toString(), poolSize: 3 });
    app = await buildApp({
      config: loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS }),
      database: handle,
      logger: false,
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
    await proxy?.close();
    await database?.close();
  });

  it('drops a connection whose transaction met a read-only server (25006), instead of reusing it', async () => {
    let pid = 0;
    const failed = await handle.db
      .transaction(async (tx) => {
        pid = (await queryRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`))[0]!.pid;
        // What a write meets on a server that became a standby: a read-only transaction.
        await tx.execute(sql`set transaction read only`);
        await tx.execute(sql`create temporary table written (x int)`);
      })
      .catch((error: unknown) => error);
    expect(describeDatabaseError(failed)).toMatchObject({ kind: 'unavailable', label: 'read_only' });
    // The pool hands out the connection released last first: it would be this one again.
    const [next] = await queryRows<{ pid: number }>(handle.db, sql`select pg_backend_pid() as pid`);
    expect(next?.pid).not.toBe(pid);
    await until('the read-only connection to be closed', async () => !(await sessionExists(pid)));
  });

  it('answers a write that meets a read-only server with the retryable 503 and Retry-After, never 500', async () => {
    const name = new URL(database.url as string).pathname.slice(1);
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      // Every new session of this database is read-only, as on a standby; the pool's are ended.
      await admin.query(`alter database ${name} set default_transaction_read_only = on`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      const refused = await api(app, 'POST', '/customers', {
        key: tenant.key,
        idempotencyKey: newIdempotencyKey('read-only'),
        body: { name: 'Só Leitura' },
      });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('2');
    } finally {
      await admin.query(`alter database ${name} reset default_transaction_read_only`);
      await admin.end();
    }
    // The primary is writable again: every read-only connection met a write and was dropped, so
    // the retries (at most one per pooled connection) reach a writable session.
    let answer = 0;
    for (let attempt = 0; attempt <= 3 && answer !== 201; attempt++) {
      answer = (
        await api(app, 'POST', '/customers', {
          key: tenant.key,
          idempotencyKey: 'read-only-then-writable',
          body: { name: 'Depois' },
        })
      ).statusCode;
    }
    expect(answer).toBe(201);
  });

  it('LISTEN re-subscribes once the database is back, and counts the loss and the return as changes', async () => {
    let heard = 0;
    const stop = await handle.listen('dbfail_probe', () => {
      heard++;
    });
    try {
      await until('the first subscription', async () => heard >= 1);
      await proxy.stop();
      await until('the loss to be heard', async () => heard >= 2);
      const beforeReturn = heard;
      await proxy.start();
      await until('the re-subscription', async () => heard > beforeReturn);
      const subscribed = heard;
      const notify = new pg.Client({ connectionString: database.url as string });
      await notify.connect();
      try {
        await until('a notification on the new subscription', async () => {
          await notify.query('notify dbfail_probe');
          await new Promise((resolve) => setTimeout(resolve, 50));
          return heard > subscribed;
        });
      } finally {
        await notify.end();
      }
    } finally {
      await stop();
    }
  });
});

describe.runIf(testStorage() === 'postgres')('background work after the database comes back', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;
  let worker: WebhookWorker;
  let receiver: Receiver;
  const errors: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    tenant = await createTenant(database.handle.db);
    const target = new URL(database.url as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(target);
    viaProxy.port = String(proxy.port);
    handle = await openDatabase({ kind: 'postgres', url: viaProxy.toString(), poolSize: 3 });
    const config = loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS, WEBHOOK_ALLOW_HTTP: 'true' });
    app = await buildApp({ config, database: handle, logger: false });
    await app.ready();
    receiver = await startReceiver();
    await executeOperation(
      operationSetup(database.handle, { webhooks: config.webhooks }),
      'webhooks.create',
      { company: String(tenant.companyId), url: receiver.url('/after'), events: 'customer.created' },
      'test',
    );
    const quiet = () => {};
    worker = startWebhookWorker({
      handle,
      config,
      log: { info: quiet, warn: quiet, error: (_object, message) => errors.push(message) },
      pollIntervalMs: 50,
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await worker?.stop();
    await app?.close();
    await handle?.close();
    await proxy?.close();
    await database?.close();
  });

  it('the webhook worker and the request log writer go on by themselves: the write after the outage is delivered and recorded', async () => {
    await proxy.stop();
    await until('the worker to meet the outage', async () => errors.length > 0);
    const down = await api(app, 'GET', '/ping', { key: tenant.key });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('2');
    await proxy.start();

    // The client's retries: the first answers may still meet a connection the outage cut.
    let created: { statusCode: number; json(): { data: { id: number } } } | undefined;
    for (let attempt = 0; attempt < 5 && created?.statusCode !== 201; attempt++) {
      created = await api(app, 'POST', '/customers', {
        key: tenant.key,
        idempotencyKey: 'after-the-outage-1',
        body: { name: 'Depois da Falha' },
      });
    }
    expect(created?.statusCode).toBe(201);
    const id = created!.json().data.id;
    await receiver.waitFor(
      (requests) => requests.some((request) => JSON.parse(request.body).data?.id === id),
      30_000,
      'the delivery of customer.created',
    );
    await until('the request log record of the write', async () => {
      const rows = await queryRows<{ status: number }>(
        database.handle.db,
        sql`select status from request_log where idempotency_key = 'after-the-outage-1' and status = 201`,
      );
      return rows.length === 1;
    });
  });
});
