// `migrate`, `demo` and the first start of `serve` on a fresh database, through the real
// bin/invoicing (the repeated commands, and the refusal before migrating, run main() in this
// process); the demo's keys must read every resource of the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  type CliStorage,
  cliJson,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runInProcess,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';

// The command line's texts asserted here are English: every command asks for English (Portuguese is
// the default, test/cli/language.unit.test.ts).
const EN = { INVOICING_LANG: 'en' };

interface DemoOutput {
  id: number;
  company: { id: number; name: string; partner_api_enabled: boolean };
  live_key: { id: number; key: string; mode: string; scopes: string[]; expires_at: string };
  test_key: { id: number; key: string; mode: string; scopes: string[]; expires_at: string };
  invoices: { id: number; status: string }[];
  api_base_url?: string;
}

describe(`demo on a fresh database (${testStorage()})`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let storage: CliStorage;
  let server: ServeProcess | undefined;
  const demos: DemoOutput[] = [];

  beforeAll(async () => {
    // PostgreSQL: an empty database (the command line says to migrate it). PGlite: a migrated
    // copy; creating a new cluster is test/cli/start.process.test.ts's.
    storage = await createCliStorage({ migrated: testStorage() === 'pglite' });
  });
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
  });

  it('migrate applies the migrations (and says so again when there is nothing to do)', async () => {
    if (storage.kind === 'postgres') {
      const before = await runInProcess(['companies', 'list'], { ...EN, ...storage.env });
      expect(before.code).toBe(1);
      expect(before.stderr).toMatch(/^error: the database has no tables yet: run bin\/invoicing migrate/);
    }
    const migrated = await cliJson<{ migrated: boolean; storage: string }>(['migrate'], storage.env);
    expect(migrated.migrated).toBe(true);
    expect(migrated.storage).toMatch(storage.kind === 'pglite' ? /^embedded PGlite in / : /^PostgreSQL /);
    expect(migrated.storage).not.toContain('@'); // never credentials
  });

  it('demo prints a live key with every scope and a read-only test key; serve starts next to it', async () => {
    if (storage.kind === 'pglite') {
      // No server yet: the command takes the DATA_DIR lock and opens the database itself.
      demos.push(await cliJson<DemoOutput>(['demo'], storage.env));
      server = await startServe(storage.env);
      expect(server.ready?.demo).toBeNull(); // not a fresh database any more
    } else {
      // PostgreSQL: the demo on first start only when asked for, on an empty database.
      server = await startServe(storage.env, { args: ['--demo'] });
      const first = server.ready?.demo as DemoOutput;
      expect(first).toMatchObject({ company: { name: 'Mercearia Baía de Maputo, Lda' } });
      demos.push(first);
      demos.push(await cliJson<DemoOutput>(['demo'], storage.env));
    }
    const demo = demos.at(-1) as DemoOutput;
    expect(demo.id).toBe(demo.company.id);
    expect(demo.company.partner_api_enabled).toBe(true);
    expect(demo.live_key).toMatchObject({ mode: 'live', id: expect.any(Number) });
    expect(demo.live_key.key).toMatch(/^svc_sk_live_/);
    expect(demo.live_key.scopes).toHaveLength(7);
    expect(demo.test_key).toMatchObject({
      mode: 'test',
      scopes: ['customers:read', 'products:read', 'invoices:read', 'payments:read'],
    });
    expect(new Set(demo.invoices.map((i) => i.status))).toEqual(
      new Set(['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled']),
    );
    expect(demo.api_base_url).toMatch(/\/api\/v1\/partner$/);

    // Nothing left to migrate (in PGlite mode this now runs inside the server, through its socket).
    const again = await runInProcess(['migrate'], { ...EN, ...storage.env });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Migrations applied: .* is up to date\.\n$/);

    const text = await runInProcess(['demo'], { ...EN, ...storage.env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/live key \(all scopes\): svc_sk_live_\w+/);
    expect(text.stdout).toMatch(/test key \(read only\): +svc_sk_test_\w+/);
    expect(text.stdout).toMatch(
      /curl -H "Authorization: Bearer svc_sk_live_\w+" http:\/\/\S+\/api\/v1\/partner\/ping/,
    );
    expect(text.stdout).toContain('partially_paid');
  });

  it('the demo keys read /ping, /customers, /products, /invoices and /payments of the running server', async () => {
    const base = server?.apiBaseUrl as string;
    for (const demo of demos) {
      for (const key of [demo.live_key.key, demo.test_key.key]) {
        const ping = await apiCall(base, key, '/ping');
        expect(ping.status).toBe(200);
        expect(ping.body.data).toMatchObject({ tenant_id: demo.id, customers_visible: 7 });
        for (const [path, atLeast] of [
          ['/customers', 7],
          ['/products', 9],
          ['/invoices', 7],
          ['/payments', 4],
        ] as const) {
          const res = await apiCall(base, key, path);
          expect(res.status, `${path} ${res.body?.error?.code ?? ''}`).toBe(200);
          expect(res.body.pagination.total, path).toBe(atLeast);
        }
        const invoice = await apiCall(base, key, `/invoices/${demo.invoices[0]?.id}`);
        expect(invoice.status).toBe(200);
        expect(invoice.body.data.items.length).toBeGreaterThan(0);
      }
      const write = await apiCall(base, demo.test_key.key, '/customers', {
        method: 'POST',
        body: { name: 'Teste' },
        idempotencyKey: 'demo-cli-test-key',
      });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe('test_mode_read_only');
    }
  });
});
