// decisions.md "Idempotency": a write in flight whose holder's database session is gone is taken
// over at once, through real server processes on PostgreSQL: (a) the holding instance SIGKILLed,
// (b) the primary "failing over" under an instance (its connections cut while the old server ends
// the holder's session). The lock timeout is an hour here, so only the session rule can free the
// key in time; exactly one invoice exists either way. The embedded database records no session
// (one process): its rule stays the lock timeout (test/http/idempotency.test.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiCall, type CliStorage, commandJson, createCliStorage, type HttpAnswer } from '../helpers/cli.js';
import { assertConforms } from '../helpers/conformance.js';
import { testStorage } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** Bounds of polled conditions: seconds on a quiet machine, far below the hour of the lock timeout. */
const PATIENCE_MS = 60_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.runIf(testStorage() === 'postgres')('an in-flight write whose database session is gone', () => {
  let storage: CliStorage;
  let admin: pg.Client;
  let env: Record<string, string>;
  let key: string;
  let customerId: number;
  let productId: number;
  const servers: ServerProcess[] = [];
  let proxy: TcpProxy | undefined;

  beforeAll(async () => {
    storage = await createCliStorage();
    env = {
      ...storage.env,
      // Only the session rule may take a claim over within the test: the timeout rule would need an hour.
      IDEMPOTENCY_LOCK_TIMEOUT_SECONDS: '3600',
      // The takeover's log line says why (info).
      LOG_LEVEL: 'info',
      // The write blocked by the test's table lock waits until the test lets it go.
      DB_LOCK_TIMEOUT_MS: '600000',
      DB_STATEMENT_TIMEOUT_MS: '600000',
      // The retries below poll: room for them within a minute.
      RATE_LIMIT_KEY_PER_MINUTE: '100000',
      RATE_LIMIT_KEY_WRITES_PER_MINUTE: '100000',
      RATE_LIMIT_COMPANY_PER_MINUTE: '100000',
      RATE_LIMIT_IP_PER_MINUTE: '100000',
    };
    admin = new pg.Client({ connectionString: storage.env.DATABASE_URL });
    await admin.connect();
    const company = await commandJson<{ id: number }>(
      ['companies', 'create', '--name', 'Empresa Sessões'],
      env,
    );
    await commandJson(['companies', 'enable-api', String(company.id)], env);
    key = (await commandJson<{ key: string }>(['keys', 'create', '--company', String(company.id)], env)).key;
    const server = await startServerProcess(env);
    servers.push(server);
    const customer = await apiCall(server.baseUrl, key, '/customers', {
      method: 'POST',
      idempotencyKey: 'takeover-customer-1',
      body: { name: 'Cliente Sessões' },
    });
    expect(customer.status, JSON.stringify(customer.body)).toBe(201);
    customerId = customer.body.data.id;
    const product = await apiCall(server.baseUrl, key, '/products', {
      method: 'POST',
      idempotencyKey: 'takeover-product-1',
      body: { name: 'Serviço', type: 'SERVICES', inventory: 'NON_INVENTORY', price: 100 },
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    productId = product.body.data.id;
  }, 240_000);

  afterAll(async () => {
    for (const server of servers) await server.kill('SIGKILL');
    await proxy?.close();
    await admin?.end();
    await storage?.close();
  });

  const invoice = (reference: string) => ({
    customer_id: customerId,
    invoice_date: '2026-11-27',
    reference,
    items: [{ product_id: productId, quantity: 1, price: 100 }],
  });

  /** Blocks every insert into invoices until `release`: a write then waits inside its transaction, claim held. */
  async function blockInvoiceInserts(): Promise<{ release(): Promise<void> }> {
    await admin.query('begin');
    await admin.query('lock table invoices in share mode');
    return { release: async () => void (await admin.query('rollback')) };
  }

  /** The backend of the write waiting on the test's lock (and holding its claim's row). */
  function blockedWriter(): Promise<number> {
    return until('the write to wait on the lock', async () => {
      const { rows } = await admin.query<{ pid: number }>(
        `select pid from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
      );
      return rows[0]?.pid;
    });
  }

  async function claimOf(idempotencyKey: string) {
    const { rows } = await admin.query<{
      state: string;
      holder_pid: number | null;
      holder_server: string | null;
    }>('select state, holder_pid, holder_server from idempotency_keys where key = $1', [idempotencyKey]);
    return rows[0];
  }

  async function invoicesWith(reference: string): Promise<number> {
    const { rows } = await admin.query<{ n: number }>(
      'select count(*)::int as n from invoices where reference = $1',
      [reference],
    );
    return rows[0]!.n;
  }

  /**
   * POST /invoices. The database's retryable 503 is the framework's generic answer, outside the
   * contract's operations (as in test/hardening/bounded-waits.test.ts); every other answer is
   * checked against openapi.json.
   */
  async function postInvoice(
    server: ServerProcess,
    idempotencyKey: string,
    body: unknown,
  ): Promise<HttpAnswer> {
    const response = await fetch(`${server.baseUrl}/invoices`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const headers = Object.fromEntries(response.headers);
    if (response.status !== 503) {
      assertConforms({
        method: 'POST',
        url: new URL(response.url).pathname,
        status: response.status,
        headers,
        body: text,
      });
    }
    return { status: response.status, headers, body: text ? JSON.parse(text) : null };
  }

  /** The client's retries: again while the key is in flight (409) or the database busy (503). */
  async function retryUntilAnswered(server: ServerProcess, idempotencyKey: string, body: unknown) {
    return until('an answer other than in flight', async (): Promise<HttpAnswer | undefined> => {
      const answer = await postInvoice(server, idempotencyKey, body);
      const retryable =
        answer.status === 503 ||
        (answer.status === 409 && answer.body.error.code === 'idempotency_request_in_flight');
      return retryable ? undefined : answer;
    });
  }

  it('a claim whose instance was SIGKILLed is taken over at once by the retry on another instance, and the invoice exists once', {
    timeout: 240_000,
  }, async () => {
    const holder = await startServerProcess(env);
    servers.push(holder);
    const other = servers[0]!;
    const body = invoice('SIGKILL-1');
    const lock = await blockInvoiceInserts();
    const lost = apiCall(holder.baseUrl, key, '/invoices', {
      method: 'POST',
      idempotencyKey: 'takeover-sigkill-1',
      body,
    }).catch((error: unknown) => error);
    const pid = await blockedWriter();
    const claim = await claimOf('takeover-sigkill-1');
    expect(claim).toMatchObject({ state: 'in_flight', holder_pid: pid });
    expect(claim?.holder_server).toMatch(/^\d+@/);

    await holder.kill('SIGKILL');
    await lost;
    // The dead instance's statement goes on once the lock is free, finds its client gone, rolls back.
    await lock.release();

    const retried = await retryUntilAnswered(other, 'takeover-sigkill-1', body);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.headers['idempotency-replay']).toBeUndefined();
    const replayed = await apiCall(other.baseUrl, key, '/invoices', {
      method: 'POST',
      idempotencyKey: 'takeover-sigkill-1',
      body,
    });
    expect(replayed.status).toBe(201);
    expect(replayed.headers['idempotency-replay']).toBe('true');
    expect(replayed.body.data.id).toBe(retried.body.data.id);
    expect(await invoicesWith('SIGKILL-1')).toBe(1);
    // The log is written asynchronously: wait (bounded) for the takeover's line.
    await vi.waitFor(
      () =>
        expect(other.output()).toMatch(
          /"reason":"session_gone".*idempotency claim of a stopped holder taken over/,
        ),
      { timeout: 15_000, interval: 100 },
    );
  });

  it('a claim whose session the failed-over primary ended is taken over at once after the database is back, and the invoice exists once', {
    timeout: 240_000,
  }, async () => {
    const url = new URL(storage.env.DATABASE_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    const server = await startServerProcess({ ...env, DATABASE_URL: viaProxy.toString() });
    servers.push(server);
    const body = invoice('FAILOVER-1');
    const lock = await blockInvoiceInserts();
    const cut = postInvoice(server, 'takeover-failover-1', body);
    const pid = await blockedWriter();

    // The primary is gone for the instance: its connections cut, new ones refused. The write
    // answers the retryable 503, and cannot release its claim.
    await proxy.stop();
    const answer = await cut;
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    expect(answer.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'Service Unavailable',
    });
    expect(await claimOf('takeover-failover-1')).toMatchObject({ state: 'in_flight', holder_pid: pid });
    // The old primary ends its sessions as it goes.
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await lock.release();
    await proxy.start();

    const retried = await retryUntilAnswered(server, 'takeover-failover-1', body);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(await invoicesWith('FAILOVER-1')).toBe(1);
    // The log is written asynchronously: wait (bounded) for the takeover's line.
    await vi.waitFor(
      () =>
        expect(server.output()).toMatch(
          /"reason":"session_gone".*idempotency claim of a stopped holder taken over/,
        ),
      { timeout: 15_000, interval: 100 },
    );
  });
});
