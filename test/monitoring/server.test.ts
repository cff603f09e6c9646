// The monitoring server (src/monitoring/server.ts): liveness, readiness (database reachable and
// migrated; Redis down is degraded, still ready) and the Prometheus metrics of real requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { createRateLimiter } from '../../src/http/rate-limit/index.js';
import { type MonitoringServer, startMonitoringServer } from '../../src/monitoring/server.js';
import { api, createTenant, GENEROUS_LIMITS, newIdempotencyKey, type Tenant } from '../helpers/context.js';
import {
  createEmptyPostgresDatabase,
  createTestDatabase,
  type TestDatabase,
  testStorage,
} from '../helpers/database.js';

const OPS = { opsHost: '127.0.0.1', opsPort: 0 };

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
type Json = any;

async function get(
  monitoring: MonitoringServer,
  path: string,
): Promise<{ status: number; body: Json; text: string }> {
  const response = await fetch(`${monitoring.url}${path}`);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // /metrics is text
  }
  return { status: response.status, body, text };
}

/** The samples of a Prometheus text: `name{labels}` -> value. */
function samples(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    map.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return map;
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const rendered = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  return samples(text).get(rendered ? `${name}{${rendered}}` : name) ?? 0;
}

describe(`operations server (${testStorage()})`, () => {
  let database: TestDatabase;
  let app: App;
  let ops: MonitoringServer;
  let tenant: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase();
    tenant = await createTenant(database.handle.db);
    const config = loadConfig({ ...GENEROUS_LIMITS, RATE_LIMIT_IP_PER_MINUTE: '2' });
    app = await buildApp({ config, database: database.handle, logger: false });
    await app.ready();
    ops = await startMonitoringServer(OPS, { handle: database.handle, rateLimiter: app.rateLimiter });
  });
  afterAll(async () => {
    await ops?.close();
    await app?.close();
    await database?.close();
  });

  it('listens on 127.0.0.1 by default, apart from the API', async () => {
    expect(loadConfig({ OPS_PORT: '9464' }).opsHost).toBe('127.0.0.1');
    expect(ops.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The API keeps its 14 routes: none of these is one of them.
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    }
  });

  it('/healthz: 200 while the process runs', async () => {
    const health = await get(ops, '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', pid: process.pid });
  });

  it('/readyz: ready when the database answers and is migrated; limits in memory', async () => {
    const ready = await get(ops, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: { ok: true }, rate_limits: { store: 'memory', ok: true } },
    });
  });

  it('/metrics: requests by route, status and error code, latency, refusals by limit, idempotency', async () => {
    const before = (await get(ops, '/metrics')).text;

    for (let i = 0; i < 3; i++)
      expect((await api(app, 'GET', '/ping', { key: tenant.key })).statusCode).toBe(200);
    // Without a key: 401 twice, then the per-IP limit (2 a minute) refuses.
    const anonymous = [];
    for (let i = 0; i < 3; i++) anonymous.push((await api(app, 'GET', '/customers')).statusCode);
    expect(anonymous).toEqual([401, 401, 429]);
    expect((await app.inject({ method: 'GET', url: '/api/v1/partner/nothing-here' })).statusCode).toBe(404);
    // A write, its replay, and the same key with other bytes.
    const idempotencyKey = newIdempotencyKey('metrics');
    const body = { name: 'Cliente Métrico', email: `metrico-${Date.now()}@exemplo.co.mz` };
    const created = await api(app, 'POST', '/customers', { key: tenant.key, body, idempotencyKey });
    expect(created.statusCode).toBe(201);
    const replayed = await api(app, 'POST', '/customers', { key: tenant.key, body, idempotencyKey });
    expect(replayed.headers['idempotency-replay']).toBe('true');
    const reused = await api(app, 'POST', '/customers', {
      key: tenant.key,
      body: { ...body, name: 'Outro' },
      idempotencyKey,
    });
    expect(reused.statusCode).toBe(409);

    const scrape = await get(ops, '/metrics');
    expect(scrape.status).toBe(200);
    const after = scrape.text;
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    const route = (path: string) => `/api/v1/partner${path}`;

    expect(
      delta('invoicing_http_requests_total', {
        route: route('/ping'),
        method: 'GET',
        status: '200',
        error_code: '',
      }),
    ).toBe(3);
    expect(
      delta('invoicing_http_requests_total', {
        route: route('/customers'),
        method: 'GET',
        status: '401',
        error_code: 'invalid_api_key',
      }),
    ).toBe(2);
    expect(
      delta('invoicing_http_requests_total', {
        route: route('/customers'),
        method: 'GET',
        status: '429',
        error_code: 'rate_limit_exceeded',
      }),
    ).toBe(1);
    expect(
      delta('invoicing_http_requests_total', {
        route: 'unmatched',
        method: 'GET',
        status: '404',
        error_code: '',
      }),
    ).toBe(1);
    expect(
      delta('invoicing_http_requests_total', {
        route: route('/customers'),
        method: 'POST',
        status: '201',
        error_code: '',
      }),
    ).toBe(2); // the write and its replay
    expect(
      delta('invoicing_http_requests_total', {
        route: route('/customers'),
        method: 'POST',
        status: '409',
        error_code: 'idempotency_key_reuse',
      }),
    ).toBe(1);
    expect(
      delta('invoicing_http_request_duration_seconds_count', { route: route('/ping'), method: 'GET' }),
    ).toBe(3);
    expect(delta('invoicing_rate_limit_refusals_total', { limit: 'ip-minute' })).toBe(1);
    expect(delta('invoicing_idempotency_replays_total')).toBe(1);
    expect(delta('invoicing_idempotency_conflicts_total', { error_code: 'idempotency_key_reuse' })).toBe(1);
    expect(sample(after, 'invoicing_rate_limit_store', { store: 'memory' })).toBe(1);
    expect(sample(after, 'invoicing_rate_limit_redis_fallback')).toBe(0);
    expect(after).toContain('# TYPE invoicing_http_request_duration_seconds histogram');
    // What runs, whether it is ready, and the webhook deliveries' counters and backlog.
    expect(after).toMatch(
      /^invoicing_build_info\{version="\d+\.\d+\.\d+",commit="([0-9a-f]{40}|unknown)",node_version="v\d+\.\d+\.\d+"\} 1$/m,
    );
    expect(sample(after, 'invoicing_ready')).toBe(1);
    expect(after).toContain('# TYPE invoicing_webhook_attempts_total counter');
    expect(after).toContain('# TYPE invoicing_webhook_deliveries_exhausted_total counter');
    expect(sample(after, 'invoicing_webhook_deliveries_pending')).toBe(0);
    expect(after).toContain('invoicing_process_resident_memory_bytes');
    if (database.handle.pool) {
      expect(sample(after, 'invoicing_db_pool_connections', { state: 'max' })).toBe(20);
      expect(sample(after, 'invoicing_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      expect(delta('invoicing_db_pool_acquire_seconds_count')).toBeGreaterThan(0);
      expect(after).toContain('invoicing_db_pool_waiting 0');
    } else {
      expect(after).not.toMatch(/^invoicing_db_pool_connections\{/m);
    }
  });

  it('/readyz: 503 "stopping" once the service is asked to stop', async () => {
    const stopping = await startMonitoringServer(OPS, {
      handle: database.handle,
      rateLimiter: app.rateLimiter,
    });
    try {
      expect((await get(stopping, '/readyz')).status).toBe(200);
      stopping.markStopping();
      expect(await get(stopping, '/readyz')).toMatchObject({ status: 503, body: { status: 'stopping' } });
      expect(sample((await get(stopping, '/metrics')).text, 'invoicing_ready')).toBe(0);
      expect((await get(stopping, '/healthz')).status).toBe(200);
    } finally {
      await stopping.close();
    }
  });

  it('/readyz: 503 with the reason when the database is not migrated', async () => {
    let handle: DatabaseHandle;
    let drop = async () => {};
    if (testStorage() === 'postgres') {
      const empty = await createEmptyPostgresDatabase();
      handle = await openDatabase({ kind: 'postgres', url: empty.url, poolSize: 2 });
      drop = empty.drop;
    } else {
      handle = await openDatabase({ kind: 'pglite', dataDir: null });
    }
    const unmigrated = await startMonitoringServer(OPS, { handle, rateLimiter: app.rateLimiter });
    try {
      const ready = await get(unmigrated, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({
        status: 'not_ready',
        checks: { database: { ok: false, reason: expect.stringMatching(/^database not migrated/) } },
      });
      expect((await get(unmigrated, '/healthz')).status).toBe(200);
    } finally {
      await unmigrated.close();
      await handle.close();
      await drop();
    }
  });

  it('Redis down: degraded, still ready (limits count in memory)', async () => {
    const config = loadConfig({ ...GENEROUS_LIMITS, REDIS_URL: 'redis://127.0.0.1:1' });
    const limiter = createRateLimiter(config);
    const degraded = await startMonitoringServer(OPS, { handle: database.handle, rateLimiter: limiter });
    try {
      // The first count finds Redis unreachable and falls back to memory.
      await limiter.consumeAnonymous('192.0.2.1');
      expect(limiter.storeState()).toBe('redis-fallback');
      const ready = await get(degraded, '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({
        status: 'degraded',
        checks: {
          database: { ok: true },
          rate_limits: {
            store: 'redis-fallback',
            ok: false,
            reason: 'Redis unreachable: rate limits count in this instance only',
          },
        },
      });
      const text = (await get(degraded, '/metrics')).text;
      expect(sample(text, 'invoicing_rate_limit_redis_fallback')).toBe(1);
      expect(sample(text, 'invoicing_rate_limit_store', { store: 'redis-fallback' })).toBe(1);
    } finally {
      await degraded.close();
      await limiter.close();
    }
  });
});
