// Issue 40, goals 5 and 7: "Usage charts are read from rollups (per minute or per hour) that the
// request-log writer keeps, never from a scan of the log". Real API traffic through HTTP on two
// app instances of one database, then the `usage` operation (which reads only the rollups) must
// give what a count over the request log gives: requests by status class, 429s, writes, error
// codes, deprecated uses; p50 and p99 within the bounds of the bucket holding the true values.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase, queryRows } from '../../src/db/client.js';
import type { DeprecatedItem } from '../../src/http/deprecation.js';
import { createApiKey } from '../../src/operations/api-keys.js';
import { executeOperation } from '../../src/operations/index.js';
import type { UsageReport } from '../../src/operations/requests/index.js';
import { createRequestLog, RETENTION_DAYS } from '../../src/request-log/writer.js';
import { apiCall } from '../helpers/cli.js';
import {
  asOperator,
  createTenant,
  GENEROUS_LIMITS,
  newIdempotencyKey,
  operationSetup,
  TEST_DOCS_URL,
  type Tenant,
} from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

const DEPRECATED: DeprecatedItem[] = [
  { route: 'GET /products', deprecatedAt: '2026-05-01', sunsetAt: '2027-11-30' },
];
const DAY_MS = 24 * 60 * 60 * 1000;

/** The log's own count of what the rollups must say, over every row of the company (or key). */
interface Truth {
  requests: number;
  status_2xx: number;
  status_3xx: number;
  status_4xx: number;
  status_5xx: number;
  rate_limited: number;
  writes: number;
  deprecated: number;
  durations: number[];
  codes: Record<string, number>;
}

describe(`usage from the request log's rollups (${testStorage()})`, () => {
  let database: TestDatabase;
  let second: DatabaseHandle | null;
  let apps: App[];
  let bases: string[];
  let tenant: Tenant;
  let otherKey: { id: number; key: string };
  let neighbour: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase();
    // 429s come from a small per-key limit (each instance counts its own, or they share it).
    const config = loadConfig({
      DOCS_URL: TEST_DOCS_URL,
      ...GENEROUS_LIMITS,
      RATE_LIMIT_KEY_PER_MINUTE: '30',
    });
    second = database.url ? await openDatabase({ kind: 'postgres', url: database.url }) : null;
    apps = [
      await buildApp({ config, database: database.handle, logger: false, deprecations: DEPRECATED }),
      await buildApp({
        config,
        database: second ?? database.handle,
        logger: false,
        deprecations: DEPRECATED,
      }),
    ];
    bases = await Promise.all(
      apps.map(async (app) => `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`),
    );
    tenant = await createTenant(database.handle.db, { name: 'Uso Medido, Lda' });
    const created = await createApiKey(asOperator(database.handle.db), { companyId: tenant.companyId });
    otherKey = { id: created.id, key: created.key };
    neighbour = await createTenant(database.handle.db, { name: 'Vizinho Silencioso, Lda' });
  });
  afterAll(async () => {
    for (const app of apps ?? []) await app.close();
    await second?.close();
    await database?.close();
  });

  const usage = (raw: Record<string, unknown>) =>
    executeOperation(operationSetup(database.handle), 'usage', raw, 'test') as Promise<UsageReport>;

  /** Counted over the log's rows: the oracle. */
  async function truth(companyId: number, keyId?: number): Promise<Truth> {
    const keyFilter = keyId === undefined ? sql`` : sql`and api_key_id = ${keyId}`;
    const [row] = await queryRows<Record<string, number>>(
      database.handle.db,
      sql`select count(*)::integer as requests,
          count(*) filter (where status between 200 and 299)::integer as status_2xx,
          count(*) filter (where status between 300 and 399)::integer as status_3xx,
          count(*) filter (where status between 400 and 499)::integer as status_4xx,
          count(*) filter (where status between 500 and 599)::integer as status_5xx,
          count(*) filter (where status = 429)::integer as rate_limited,
          count(*) filter (where method in ('POST', 'PUT'))::integer as writes,
          count(*) filter (where deprecated_use is not null)::integer as deprecated
        from request_log where company_id = ${companyId} ${keyFilter}`,
    );
    const durations = await queryRows<{ d: number }>(
      database.handle.db,
      sql`select duration_us as d from request_log where company_id = ${companyId} ${keyFilter} order by 1`,
    );
    const codes = await queryRows<{ code: string; n: number }>(
      database.handle.db,
      sql`select error_code as code, count(*)::integer as n from request_log
        where company_id = ${companyId} ${keyFilter} and error_code is not null group by 1`,
    );
    return {
      ...(row as unknown as Omit<Truth, 'durations' | 'codes'>),
      durations: durations.map((r) => Number(r.d)),
      codes: Object.fromEntries(codes.map((r) => [r.code, Number(r.n)])),
    };
  }

  /** percentile_disc: the ceil(q * n)-th smallest duration, in ms. */
  const trueQuantile = (sorted: number[], q: number) =>
    (sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number) / 1000;

  function expectEqual(report: UsageReport, expected: Truth) {
    const { totals } = report;
    expect({
      requests: totals.requests,
      status_2xx: totals.status_2xx,
      status_3xx: totals.status_3xx,
      status_4xx: totals.status_4xx,
      status_5xx: totals.status_5xx,
      rate_limited: totals.rate_limited,
      writes: totals.writes,
      deprecated: totals.deprecated,
    }).toEqual({
      requests: expected.requests,
      status_2xx: expected.status_2xx,
      status_3xx: expected.status_3xx,
      status_4xx: expected.status_4xx,
      status_5xx: expected.status_5xx,
      rate_limited: expected.rate_limited,
      writes: expected.writes,
      deprecated: expected.deprecated,
    });
    expect(Object.fromEntries(report.error_codes.map((row) => [row.code, row.requests]))).toEqual(
      expected.codes,
    );
    // The histogram holds every request, and the percentiles' buckets hold the true values.
    expect(report.latency.reduce((sum, bucket) => sum + bucket.requests, 0)).toBe(expected.requests);
    for (const [q, found] of [
      [0.5, totals.p50],
      [0.99, totals.p99],
    ] as const) {
      const value = trueQuantile(expected.durations, q);
      expect(found, `p${q * 100}`).not.toBeNull();
      expect(value, `p${q * 100} low`).toBeGreaterThanOrEqual(found?.low_ms as number);
      if (found?.high_ms !== null) expect(value, `p${q * 100} high`).toBeLessThan(found?.high_ms as number);
    }
    // The series adds up to the totals.
    const sum = (field: 'requests' | 'status_4xx' | 'rate_limited' | 'writes') =>
      report.series.reduce((total, point) => total + point[field], 0);
    expect([sum('requests'), sum('status_4xx'), sum('rate_limited'), sum('writes')]).toEqual([
      totals.requests,
      totals.status_4xx,
      totals.rate_limited,
      totals.writes,
    ]);
  }

  it('goal 7: after real traffic on two instances, usage (rollups only) equals a count over the request log', async () => {
    const requests: Promise<unknown>[] = [];
    for (const [index, base] of bases.entries()) {
      for (let n = 0; n < 3; n++) {
        const created = await fetch(`${base}/customers`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${otherKey.key}`,
            'content-type': 'application/json',
            'idempotency-key': newIdempotencyKey('usage'),
          },
          body: JSON.stringify({ name: `Cliente Medido ${index}-${n}` }),
        });
        expect(created.status).toBe(201);
        const id = (await created.json()).data.id;
        const updated = await fetch(`${base}/customers/${id}`, {
          method: 'PUT',
          headers: {
            authorization: `Bearer ${otherKey.key}`,
            'content-type': 'application/json',
            'idempotency-key': newIdempotencyKey('usage'),
          },
          body: JSON.stringify({ name: `Cliente Medido ${index}-${n} (novo)` }),
        });
        expect(updated.status).toBe(200);
      }
      requests.push(apiCall(base, otherKey.key, '/customers/987654'));
      requests.push(apiCall(base, otherKey.key, '/customers?zzfield=1'));
      requests.push(apiCall(base, otherKey.key, '/products'));
      // Beyond the key's 30 a minute: some answered 429 rate_limited.
      for (let n = 0; n < 40; n++) requests.push(apiCall(base, tenant.key, '/ping'));
      requests.push(apiCall(base, neighbour.key, '/ping'));
    }
    await Promise.all(requests);
    await Promise.all(apps.map((app) => app.requestLog.flush()));

    const company = await truth(tenant.companyId);
    expect(company.rate_limited).toBeGreaterThan(0);
    expect(company.writes).toBe(12);
    expect(company.deprecated).toBe(2);
    for (const window of ['24h', '7d', '30d']) {
      const report = await usage({ company: tenant.companyId, window });
      expect(report).toMatchObject({ company_id: tenant.companyId, api_key_id: null, window });
      expect(report.series).toHaveLength({ '24h': 24, '7d': 28, '30d': 30 }[window] as number);
      expectEqual(report, company);
      expect(report.deprecated_uses).toEqual([{ item: 'GET /products', requests: 2 }]);
    }
    const perKey = await usage({ company: tenant.companyId, key: otherKey.id, window: '24h' });
    expectEqual(perKey, await truth(tenant.companyId, otherKey.id));
    const limited = await usage({ company: tenant.companyId, key: tenant.apiKey.id, window: '7d' });
    expectEqual(limited, await truth(tenant.companyId, tenant.apiKey.id));
    expect(limited.error_codes).toEqual([{ code: 'rate_limit_exceeded', requests: company.rate_limited }]);

    // Another company's key answers like a missing one; the neighbour sees only its own request.
    await expect(usage({ company: neighbour.companyId, key: otherKey.id })).rejects.toThrow(
      `API key ${otherKey.id} does not exist`,
    );
    await expect(usage({ company: tenant.companyId, key: 987654 })).rejects.toThrow(
      'API key 987654 does not exist',
    );
    expectEqual(await usage({ company: neighbour.companyId }), await truth(neighbour.companyId));

    // keys usage keeps its shape and reads the rollups.
    const keyDays = await executeOperation(
      operationSetup(database.handle),
      'keys.usage',
      { id: tenant.apiKey.id },
      'test',
    );
    const keyTruth = await truth(tenant.companyId, tenant.apiKey.id);
    expect(keyDays.totals).toEqual({
      requests: keyTruth.requests,
      refused: keyTruth.status_4xx,
      rate_limited: keyTruth.rate_limited,
    });
  });

  it('goal 7: several writers adding to the same hour at once count every record once; pruned with the log', async () => {
    const handles = [database.handle, second ?? database.handle];
    const logs = [0, 1, 2, 3].map((n) =>
      createRequestLog((handles[n % 2] as DatabaseHandle).db, { prune: false }),
    );
    const before = await usage({ company: neighbour.companyId, window: '24h' });
    const now = Date.now();
    let sequence = 0;
    const record = (status: number, durationUs: number, errorCode: string | null) => ({
      at: now,
      companyId: neighbour.companyId,
      apiKeyId: neighbour.apiKey.id,
      method: status === 201 ? 'POST' : 'GET',
      route: '/api/v1/partner/customers',
      status,
      errorCode,
      requestId: `req_${(0xabc000000 + sequence++).toString(16).padStart(24, '0')}`,
      idempotencyKey: null,
      replayed: false,
      durationUs,
      clientIp: '127.0.0.1',
      deprecatedUse: status === 503 ? ['GET /customers?search'] : null,
    });
    for (const log of logs) {
      for (let n = 0; n < 250; n++) log.record(record(201, 800 + n * 40, null));
      for (let n = 0; n < 20; n++) log.record(record(503, 2_500_000, 'service_unavailable'));
    }
    await Promise.all(logs.map((log) => log.flush()));
    const after = await usage({ company: neighbour.companyId, window: '24h' });
    expect(after.totals.requests - before.totals.requests).toBe(4 * 270);
    expect(after.totals.writes - before.totals.writes).toBe(4 * 250);
    expect(after.totals.status_5xx).toBe(4 * 20);
    expect(after.totals.deprecated).toBe(4 * 20);
    expect(after.deprecated_uses).toEqual([{ item: 'GET /customers?search', requests: 80 }]);
    expectEqual(after, await truth(neighbour.companyId));

    // The rollups go with the log's rows: an hour before the horizon is deleted, the current one stays.
    const moved = createRequestLog(database.handle.db, {
      prune: false,
      clock: () => Date.now() + (RETENTION_DAYS + 1) * DAY_MS,
    });
    await moved.prune();
    await Promise.all([...logs, moved].map((log) => log.close()));
    const [left] = await queryRows<{ usage: number; codes: number }>(
      database.handle.db,
      sql`select (select count(*) from request_usage)::integer as usage,
        (select count(*) from request_usage_codes)::integer as codes`,
    );
    expect(left).toEqual({ usage: 0, codes: 0 });
    expect((await usage({ company: neighbour.companyId, window: '30d' })).totals.requests).toBe(0);
  });
});
