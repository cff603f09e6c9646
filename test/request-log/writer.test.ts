// The request log through real HTTP: one record per request of a known key, with what support
// needs and nothing of bodies or keys; written in batches after the answers; pruned after 30 days
// by the log's clock (moved here), by several instances at once without waiting for each other.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { apiKeys, requestLog } from '../../src/db/schema.js';
import { metrics } from '../../src/metrics/registry.js';
import { createRequestLog, RETENTION_DAYS } from '../../src/request-log/writer.js';
import { apiCall } from '../helpers/cli.js';
import {
  createTenant,
  newIdempotencyKey,
  startSecondInstance,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';
import { createCustomer, createProduct } from '../helpers/invoices.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The value of one series (`name{labels}` as /metrics writes it), from /metrics' text. */
async function counted(series: string): Promise<number> {
  const line = (await metrics.text()).split('\n').find((text) => text.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** The value of one series of the request log's counter. */
function recordsCounted(outcome: 'written' | 'dropped'): Promise<number> {
  return counted(`invoicing_request_log_records_total{outcome="${outcome}"}`);
}

describe(`request log (${testStorage()})`, () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let base: string;
  /** The app's clock runs this far ahead of the real one. */
  let offset = 0;

  beforeAll(async () => {
    ctx = await startTestApp({}, { clock: () => Date.now() + offset });
    base = `${await ctx.app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
    tenant = await createTenant(ctx.db, { name: 'Registo de Pedidos, Lda' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa, Lda' });
  });
  afterAll(() => ctx?.close());

  const rowsOf = (requestId: string) =>
    ctx.db.select().from(requestLog).where(eq(requestLog.requestId, requestId));

  it('one record per request of a known key, written after the answer; never bodies nor keys', async () => {
    const writtenBefore = await recordsCounted('written');
    const idempotencyKey = newIdempotencyKey('log');
    const created = await fetch(`${base}/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify({ name: 'Cliente Secreto Mabote', email: 'segredo@example.co.mz' }),
    });
    expect(created.status).toBe(201);
    const createdId = created.headers.get('x-request-id') as string;
    const missing = await apiCall(base, tenant.key, '/customers/987654');
    const badQuery = await apiCall(base, tenant.key, '/customers?zzfield=segredo');
    const wrongKey = await apiCall(base, `svc_sk_live_${randomBytes(24).toString('hex')}`, '/ping');
    expect([missing.status, badQuery.status, wrongKey.status]).toEqual([404, 422, 401]);

    await ctx.app.requestLog.flush();
    const [row] = await rowsOf(createdId);
    expect(row).toEqual({
      at: expect.any(Date),
      companyId: tenant.companyId,
      apiKeyId: tenant.apiKey.id,
      method: 'POST',
      route: '/api/v1/partner/customers',
      status: 201,
      errorCode: null,
      requestId: createdId,
      idempotencyKey,
      replayed: false,
      durationUs: expect.any(Number),
      clientIp: '127.0.0.1',
      deprecatedUse: null,
      // (tracing is off in this app: test/tracing/tracing.process.test.ts keeps the trace id)
      traceId: null,
    });
    expect(Math.abs((row?.at.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    expect(row?.durationUs).toBeGreaterThan(0);
    expect(await rowsOf(missing.body.error.request_id)).toEqual([
      expect.objectContaining({
        route: '/api/v1/partner/customers/:id',
        status: 404,
        errorCode: 'resource_not_found',
        idempotencyKey: null,
      }),
    ]);
    expect(await rowsOf(badQuery.body.error.request_id)).toEqual([
      expect.objectContaining({ route: '/api/v1/partner/customers', status: 422 }),
    ]);
    // A key that is no key of ours is nobody's request: not logged.
    expect(await rowsOf(wrongKey.body.error.request_id)).toEqual([]);
    // Nothing of the body, the query string or the key anywhere in the log.
    const everything = JSON.stringify(await ctx.db.select().from(requestLog));
    for (const secret of ['Mabote', 'segredo', 'zzfield', '987654', tenant.key, tenant.key.slice(12)]) {
      expect(everything).not.toContain(secret);
    }
    expect((await recordsCounted('written')) - writtenBefore).toBeGreaterThanOrEqual(2);
  });

  it('logs a known key that is refused (expired) under its key and company', async () => {
    const expired = await createTenant(ctx.db, { name: 'Chave Expirada' });
    await ctx.db
      .update(apiKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(apiKeys.id, expired.apiKey.id));
    const answer = await apiCall(base, expired.key, '/ping');
    expect(answer.body.error.code).toBe('api_key_expired');
    await ctx.app.requestLog.flush();
    expect(await rowsOf(answer.body.error.request_id)).toEqual([
      expect.objectContaining({
        companyId: expired.companyId,
        apiKeyId: expired.apiKey.id,
        status: 401,
        errorCode: 'api_key_expired',
      }),
    ]);
  });

  it('a stored refusal replayed: logged and counted with its code, the replay as replayed', async () => {
    const third = await createTenant(ctx.db, { name: 'Terceira Empresa, Lda' });
    const foreignCustomerId = await createCustomer(ctx.app, third, 'Cliente de Outra Empresa');
    const productId = await createProduct(ctx.app, ctx.db, tenant, { name: 'Produto do Registo', price: 10 });
    const idempotencyKey = newIdempotencyKey('stored-404');
    const send = () =>
      fetch(`${base}/invoices`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.key}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
        body: JSON.stringify({
          customer_id: foreignCustomerId,
          invoice_date: '2026-11-20',
          items: [{ product_id: productId, quantity: 1, price: 10 }],
        }),
      });
    const refusals =
      'invoicing_http_requests_total{route="/api/v1/partner/invoices",method="POST",status="404",error_code="resource_not_found"}';
    const [refusalsBefore, replaysBefore] = [
      await counted(refusals),
      await counted('invoicing_idempotency_replays_total'),
    ];

    const first = await send();
    const again = await send();
    expect([first.status, again.status]).toEqual([404, 404]);
    expect(again.headers.get('idempotency-replay')).toBe('true');
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');

    // The replay's code is the stored answer's: counted and logged like the first one's.
    expect((await counted(refusals)) - refusalsBefore).toBe(2);
    expect((await counted('invoicing_idempotency_replays_total')) - replaysBefore).toBe(1);
    await ctx.app.requestLog.flush();
    const logged = (response: Response) => rowsOf(response.headers.get('x-request-id') as string);
    expect(await logged(first)).toEqual([
      expect.objectContaining({
        status: 404,
        errorCode: 'resource_not_found',
        idempotencyKey,
        replayed: false,
      }),
    ]);
    expect(await logged(again)).toEqual([
      expect.objectContaining({
        status: 404,
        errorCode: 'resource_not_found',
        idempotencyKey,
        replayed: true,
      }),
    ]);
  });

  it('writes many records in batches, each request once', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, () => apiCall(base, other.key, '/ping')));
    await ctx.app.requestLog.flush();
    const ids = answers.map((answer) => answer.body.data.request_id as string);
    const rows = await ctx.db
      .select({ requestId: requestLog.requestId })
      .from(requestLog)
      .where(eq(requestLog.companyId, other.companyId));
    expect(rows.map((row) => row.requestId).sort()).toEqual([...ids].sort());
  });

  it(`is pruned once older than ${RETENTION_DAYS} days by the log's clock, and only then`, async () => {
    const before = await apiCall(base, tenant.key, '/ping');
    await ctx.app.requestLog.flush();
    const id = before.body.data.request_id as string;
    expect(await rowsOf(id)).toHaveLength(1);

    offset = (RETENTION_DAYS - 1) * DAY_MS;
    expect(await ctx.app.requestLog.prune()).toBe(0);
    expect(await rowsOf(id)).toHaveLength(1);

    offset = (RETENTION_DAYS + 1) * DAY_MS;
    // A request made at the moved time stays: it is new.
    const later = await apiCall(base, tenant.key, '/ping');
    await ctx.app.requestLog.flush();
    expect(await ctx.app.requestLog.prune()).toBeGreaterThanOrEqual(60);
    expect(await rowsOf(id)).toEqual([]);
    const remaining = await ctx.db.select({ requestId: requestLog.requestId }).from(requestLog);
    expect(remaining.map((row) => row.requestId)).toEqual([later.body.data.request_id]);
    offset = 0;
  });

  it('several instances prune at once without waiting for each other, each row deleted once', async () => {
    const old = Date.now() - (RETENTION_DAYS + 2) * DAY_MS;
    const rows = 12_000;
    await ctx.db.execute(sql`insert into request_log (at, company_id, api_key_id, method, route, status,
        request_id, duration_us, client_ip)
      select ${new Date(old).toISOString()}::timestamptz + n * interval '1 millisecond', ${tenant.companyId},
        ${tenant.apiKey.id}, 'GET', '/api/v1/partner/ping', 200, 'req_' || lpad(to_hex(n), 24, '0'), 100, '127.0.0.1'
      from generate_series(1, ${rows}) as n`);
    const second: DatabaseHandle | null =
      ctx.database.url === null
        ? null
        : await openDatabase({ kind: 'postgres', url: ctx.database.url, poolSize: 2 });
    try {
      const logs = [ctx.db, second?.db ?? ctx.db, ctx.db].map((db) => createRequestLog(db, { prune: false }));
      const deleted = await Promise.all(logs.map((log) => log.prune()));
      expect(deleted.reduce((sum, count) => sum + count, 0)).toBe(rows);
      await Promise.all(logs.map((log) => log.close()));
    } finally {
      await second?.close();
    }
    const [left] = await ctx.db.select({ count: sql<number>`count(*)::integer` }).from(requestLog);
    expect(left?.count).toBe(1);
  });

  it('REQUEST_LOG=off: that server keeps no record, answers the same, and the older records are still pruned', async () => {
    const quiet = await startSecondInstance(ctx, {
      requestLog: loadConfig({ REQUEST_LOG: 'off' }).requestLog,
    });
    try {
      const quietBase = `${await quiet.app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
      const [off, on] = await Promise.all([
        apiCall(quietBase, tenant.key, '/customers?per_page=1'),
        apiCall(base, tenant.key, '/customers?per_page=1'),
      ]);
      expect([off.status, on.status]).toEqual([200, 200]);
      expect(off.body).toEqual(on.body);
      const onId = on.headers['x-request-id'] as string;
      const droppedBefore = await recordsCounted('dropped');
      await Promise.all([quiet.app.requestLog.flush(), ctx.app.requestLog.flush()]);
      expect(await rowsOf(off.headers['x-request-id'] as string)).toEqual([]);
      expect(await rowsOf(onId)).toHaveLength(1);
      // Not taken at all: nothing buffered, nothing counted as dropped.
      expect(await recordsCounted('dropped')).toBe(droppedBefore);

      // What was written before the switch still goes when it is old enough, by a server with the log off.
      await ctx.db.execute(sql`update ${requestLog} set at = now() - make_interval(days => ${RETENTION_DAYS + 1})
        where request_id = ${onId}`);
      expect(await quiet.app.requestLog.prune()).toBeGreaterThanOrEqual(1);
      expect(await rowsOf(onId)).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('writes what is left when it closes (the app closes it after the last answer: a graceful stop loses nothing)', async () => {
    const log = createRequestLog(ctx.db, { prune: false });
    const requestId = `req_${randomBytes(12).toString('hex')}`;
    log.record({
      at: Date.now(),
      companyId: tenant.companyId,
      apiKeyId: tenant.apiKey.id,
      method: 'GET',
      route: '/api/v1/partner/ping',
      status: 200,
      errorCode: null,
      requestId,
      idempotencyKey: null,
      replayed: false,
      durationUs: 1500,
      clientIp: '::1',
    });
    await log.close();
    expect(await rowsOf(requestId)).toHaveLength(1);
    // Closed: a record now is dropped (and counted), never written.
    const dropped = await recordsCounted('dropped');
    log.record({
      at: Date.now(),
      companyId: 1,
      apiKeyId: 1,
      method: 'GET',
      route: '/',
      status: 200,
      errorCode: null,
      requestId: 'req_x',
      idempotencyKey: null,
      replayed: false,
      durationUs: 1,
      clientIp: '::1',
    });
    expect(await recordsCounted('dropped')).toBe(dropped + 1);
  });
});
