// /readyz follows PostgreSQL: 503 with the reason while the database cannot be reached, 200 again
// once it can, without a restart. The server reaches PostgreSQL through a TCP proxy that the test
// stops (connections refused, open ones cut) and starts again on the same port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { type MonitoringServer, startMonitoringServer } from '../../src/monitoring/server.js';
import { api, createTenant, GENEROUS_LIMITS, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
async function readyz(ops: MonitoringServer): Promise<{ status: number; body: any }> {
  const response = await fetch(`${ops.url}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe.runIf(testStorage() === 'postgres')('readiness while PostgreSQL goes away and comes back', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let handle: DatabaseHandle;
  let app: App;
  let ops: MonitoringServer;
  let tenant: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    tenant = await createTenant(database.handle.db);
    const target = new URL(database.url as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(target);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    handle = await openDatabase({ kind: 'postgres', url: viaProxy.toString(), poolSize: 4 });
    app = await buildApp({ config: loadConfig(GENEROUS_LIMITS), database: handle, logger: false });
    await app.ready();
    ops = await startMonitoringServer(
      { opsHost: '127.0.0.1', opsPort: 0 },
      { handle, rateLimiter: app.rateLimiter },
    );
  });
  afterAll(async () => {
    await ops?.close();
    await app?.close();
    await handle?.close();
    await proxy?.close();
    await database?.close();
  });

  it('ready, then 503 with the reason while unreachable, then ready again', async () => {
    expect((await api(app, 'GET', '/ping', { key: tenant.key })).statusCode).toBe(200);
    expect(await readyz(ops)).toMatchObject({ status: 200, body: { status: 'ready' } });

    await proxy.stop();
    const down = await readyz(ops);
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      status: 'not_ready',
      checks: {
        database: { ok: false, reason: expect.stringMatching(/^database unreachable: /) },
        rate_limits: { store: 'memory', ok: true },
      },
    });
    expect(down.body.checks.database.reason).not.toMatch(/postgres:\/\/|127\.0\.0\.1|select/i);
    // Alive all the same: a restart would not help.
    expect((await fetch(`${ops.url}/healthz`)).status).toBe(200);
    // Requests meanwhile are the retryable 503 with Retry-After, never a 500 (nothing was written).
    for (const [method, path, body] of [
      ['GET', '/ping', undefined],
      ['POST', '/customers', { name: 'Cliente durante a falha' }],
    ] as const) {
      const response = await api(app, method, path, { key: tenant.key, body, idempotencyKey: 'outage-0001' });
      expect(response.statusCode, `${method} ${path}`).toBe(503);
      expect(response.headers['retry-after']).toBe('2');
    }

    await proxy.start();
    const deadline = Date.now() + 15_000;
    let again = await readyz(ops);
    while (again.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await readyz(ops);
    }
    expect(again).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect((await api(app, 'GET', '/ping', { key: tenant.key })).statusCode).toBe(200);
  });
});
