// Issue 40, goal 5: "/usage?company=ID&key=ID: per company and per key, over 24 hours, 7 days and
// 30 days ... as charts with the same numbers in an accessible table". Real API traffic through
// HTTP, then the console's page (through real HTTP, signed in) must show in its table what a count
// over the request log gives. A partner sees its own company's usage; another's answers 404.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { apiCall } from '../helpers/cli.js';
import {
  type Answer,
  signedInPerson,
  startTestConsole,
  type TestConsole,
  type TestPerson,
} from '../helpers/console.js';
import {
  createTenant,
  GENEROUS_LIMITS,
  newIdempotencyKey,
  TEST_DOCS_URL,
  type Tenant,
} from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

const FIELDS = ['requests', 'status_2xx', 'status_3xx', 'status_4xx', 'status_5xx', 'rate_limited', 'writes'];

/** The numbers of the page's totals table (`data-usage` cells). */
function tableNumbers(answer: Answer): Record<string, number> {
  const found: Record<string, number> = {};
  for (const match of answer.text.matchAll(/<td data-usage="([a-z0-9_]+)">([^<]*)<\/td>/g)) {
    if (FIELDS.includes(match[1] as string)) found[match[1] as string] = Number(match[2]);
  }
  return found;
}

function errorNumbers(answer: Answer): Record<string, number> {
  return Object.fromEntries(
    [...answer.text.matchAll(/<td data-error="([a-z0-9_]+)">([0-9]+)<\/td>/g)].map((m) => [
      m[1],
      Number(m[2]),
    ]),
  );
}

describe(`the console's usage page (${testStorage()})`, () => {
  let database: TestDatabase;
  let app: App;
  let base: string;
  let consoleServer: TestConsole;
  let tenant: Tenant;
  let neighbour: Tenant;
  let viewer: TestPerson;
  let partner: TestPerson;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({
      DOCS_URL: TEST_DOCS_URL,
      ...GENEROUS_LIMITS,
      RATE_LIMIT_KEY_PER_MINUTE: '20',
    });
    app = await buildApp({ config, database: database.handle, logger: false });
    base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
    consoleServer = await startTestConsole(database.handle);
    tenant = await createTenant(database.handle.db, { name: 'Uso na Consola, Lda' });
    neighbour = await createTenant(database.handle.db, { name: 'Vizinho, Lda' });
    viewer = await signedInPerson(consoleServer, 'viewer');
    partner = await signedInPerson(consoleServer, 'partner', neighbour.companyId);
  });
  afterAll(async () => {
    await consoleServer?.close();
    await app?.close();
    await database?.close();
  });

  async function truth(companyId: number, keyId?: number) {
    const keyFilter = keyId === undefined ? sql`` : sql`and api_key_id = ${keyId}`;
    const [row] = await queryRows<Record<string, number>>(
      database.handle.db,
      sql`select count(*)::integer as requests,
          count(*) filter (where status between 200 and 299)::integer as status_2xx,
          count(*) filter (where status between 300 and 399)::integer as status_3xx,
          count(*) filter (where status between 400 and 499)::integer as status_4xx,
          count(*) filter (where status between 500 and 599)::integer as status_5xx,
          count(*) filter (where status = 429)::integer as rate_limited,
          count(*) filter (where method in ('POST', 'PUT'))::integer as writes
        from request_log where company_id = ${companyId} ${keyFilter}`,
    );
    const codes = await queryRows<{ code: string; n: number }>(
      database.handle.db,
      sql`select error_code as code, count(*)::integer as n from request_log
        where company_id = ${companyId} ${keyFilter} and error_code is not null group by 1`,
    );
    return {
      totals: Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)])),
      codes: Object.fromEntries(codes.map((r) => [r.code, Number(r.n)])),
    };
  }

  it('goal 5: after real API traffic, the page table (24h, 7d, 30d; per company and per key) equals a count over the request log, with its charts', async () => {
    const calls: Promise<unknown>[] = [];
    for (let n = 0; n < 3; n++) {
      const created = await fetch(`${base}/customers`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.key}`,
          'content-type': 'application/json',
          'idempotency-key': newIdempotencyKey('console-usage'),
        },
        body: JSON.stringify({ name: `Cliente ${n}` }),
      });
      expect(created.status).toBe(201);
    }
    calls.push(apiCall(base, tenant.key, '/customers/987654'));
    for (let n = 0; n < 25; n++) calls.push(apiCall(base, tenant.key, '/ping'));
    calls.push(apiCall(base, neighbour.key, '/ping'));
    await Promise.all(calls);
    await app.requestLog.flush();

    const expected = await truth(tenant.companyId);
    expect(expected.totals.rate_limited).toBeGreaterThan(0);
    expect(expected.totals.writes).toBe(3);
    for (const window of ['24h', '7d', '30d']) {
      const page = await viewer.client.get(`/usage?company=${tenant.companyId}&window=${window}`);
      expect(page.status, window).toBe(200);
      expect(tableNumbers(page), window).toEqual(expected.totals);
      expect(errorNumbers(page), window).toEqual(expected.codes);
      expect(page.text).toContain('<svg class="chart" id="chart-status"');
      expect(page.text).toContain('<svg class="chart" id="chart-latency"');
      expect(page.text).toMatch(/<td data-usage="p99_ms">≤ [0-9.]+<\/td>/);
    }
    const perKey = await viewer.client.get(
      `/usage?company=${tenant.companyId}&key=${tenant.apiKey.id}&window=7d`,
    );
    expect(tableNumbers(perKey)).toEqual((await truth(tenant.companyId, tenant.apiKey.id)).totals);
    // The company page links it.
    expect((await viewer.client.get(`/companies/${tenant.companyId}`)).text).toContain(
      `href="/usage?company=${tenant.companyId}"`,
    );
    // Another company's key, and a missing company, answer 404.
    expect(
      (await viewer.client.get(`/usage?company=${neighbour.companyId}&key=${tenant.apiKey.id}`)).status,
    ).toBe(404);
    expect((await viewer.client.get('/usage?company=999999')).status).toBe(404);
  });

  it("issue 40: a partner sees its own company's usage; another company's answers like a missing one", async () => {
    const own = await partner.client.get('/usage');
    expect(own.status).toBe(200);
    expect(tableNumbers(own)).toEqual((await truth(neighbour.companyId)).totals);
    const normalized = (answer: Answer) => ({
      status: answer.status,
      text: answer.text.replace(/name="_csrf" value="[^"]+"/g, ''),
    });
    const missing = normalized(await partner.client.get('/companies/999999'));
    expect(normalized(await partner.client.get(`/usage?company=${tenant.companyId}`))).toEqual(missing);
    expect(
      normalized(await partner.client.get(`/usage?company=${neighbour.companyId}&key=${tenant.apiKey.id}`)),
    ).toEqual(missing);
  });
});
