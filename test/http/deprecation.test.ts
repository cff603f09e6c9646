// Deprecation on the wire (src/http/deprecation.ts; docs/site/en/compatibility.md): nothing in v1
// is deprecated, so this test marks synthetic items in its own app's table only. Through real HTTP:
// a request that uses a deprecated route, query parameter or body field gets Deprecation (RFC
// 9745), Sunset (RFC 8594) and Link rel="deprecation"; one that does not gets none; the request
// log records each use, and `deprecations usage` lists the keys of each company that used them.
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { COMMANDS } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config.js';
import { requestLog } from '../../src/db/schema.js';
import { DEPRECATIONS, type DeprecatedItem, deprecationTable } from '../../src/http/deprecation.js';
import { translator } from '../../src/i18n/catalog.js';
import { executeOperation } from '../../src/operations/index.js';
import { apiCall } from '../helpers/cli.js';
import { checkConformance } from '../helpers/conformance.js';
import {
  createTenant,
  GENEROUS_LIMITS,
  newIdempotencyKey,
  operationSetup,
  TEST_DOCS_URL,
  type Tenant,
} from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

const SYNTHETIC: DeprecatedItem[] = [
  { route: 'GET /customers', query: 'search', deprecatedAt: '2026-06-01', sunsetAt: '2027-12-31' },
  { route: 'POST /customers', field: 'contact_number', deprecatedAt: '2026-07-01', sunsetAt: '2028-01-31' },
  { route: 'GET /products', deprecatedAt: '2026-05-01', sunsetAt: '2027-11-30' },
];

describe(`deprecation headers and their record (${testStorage()})`, () => {
  let database: TestDatabase;
  let app: App;
  let base: string;
  let first: Tenant;
  let second: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS });
    app = checkConformance(
      await buildApp({ config, database: database.handle, logger: false, deprecations: SYNTHETIC }),
    );
    base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
    first = await createTenant(database.handle.db, { name: 'Ferragens Antigas, Lda' });
    second = await createTenant(database.handle.db, { name: 'Loja Clássica, Lda' });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  const deprecationHeaders = (headers: Record<string, string>) => ({
    deprecation: headers.deprecation,
    sunset: headers.sunset,
    link: headers.link,
  });
  const NONE = { deprecation: undefined, sunset: undefined, link: undefined };

  it('nothing in v1 is deprecated', () => {
    expect(DEPRECATIONS).toEqual([]);
    expect(() =>
      deprecationTable([{ route: 'GET customers', deprecatedAt: '2026-01-01', sunsetAt: '2027-01-01' }]),
    ).toThrow(/route/);
    expect(() =>
      deprecationTable([{ route: 'GET /ping', deprecatedAt: 'soon', sunsetAt: '2027-01-01' }]),
    ).toThrow(/deprecatedAt/);
  });

  it("the reference marks a deprecated route and query parameter (deprecated: true); today's openapi.json marks nothing", () => {
    // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document, walked as plain JSON
    const document = app.swagger() as any;
    const prefix = Object.keys(document.paths)
      .find((path) => path.endsWith('/products'))
      ?.slice(0, -'/products'.length);
    expect(document.paths[`${prefix}/products`].get.deprecated).toBe(true);
    expect(document.paths[`${prefix}/customers`].get.deprecated).toBeUndefined();
    const search = document.paths[`${prefix}/customers`].get.parameters.find(
      (parameter: { name: string }) => parameter.name === 'search',
    );
    expect(search.deprecated ?? search.schema.deprecated).toBe(true);
    expect(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')).not.toContain(
      '"deprecated"',
    );
  });

  it('a request that uses a deprecated query parameter gets Deprecation, Sunset and Link; one that does not, none', async () => {
    const used = await apiCall(base, first.key, '/customers?search=ferro');
    expect(used.status).toBe(200);
    expect(deprecationHeaders(used.headers)).toEqual({
      deprecation: `@${Date.parse('2026-06-01T00:00:00Z') / 1000}`,
      sunset: 'Fri, 31 Dec 2027 00:00:00 GMT',
      link: `<${TEST_DOCS_URL}/pt/compatibilidade#cabecalhos-de-descontinuacao>; rel="deprecation"; type="text/html"; hreflang="pt", <${TEST_DOCS_URL}/en/compatibility#deprecation-headers>; rel="deprecation"; type="text/html"; hreflang="en"`,
    });
    const plain = await apiCall(base, first.key, '/customers?type=company');
    expect(plain.status).toBe(200);
    expect(deprecationHeaders(plain.headers)).toEqual(NONE);
    expect(deprecationHeaders((await apiCall(base, first.key, '/ping')).headers)).toEqual(NONE);
  });

  it('a deprecated body field, used or not; a deprecated route', async () => {
    const withField = await apiCall(base, first.key, '/customers', {
      method: 'POST',
      body: { name: 'Cliente Antigo', contact_number: '+258 84 000 0001' },
      idempotencyKey: newIdempotencyKey('deprecated'),
    });
    expect(withField.status).toBe(201);
    expect(withField.headers.deprecation).toBe(`@${Date.parse('2026-07-01T00:00:00Z') / 1000}`);
    expect(withField.headers.sunset).toBe('Mon, 31 Jan 2028 00:00:00 GMT');
    const without = await apiCall(base, first.key, '/customers', {
      method: 'POST',
      body: { name: 'Cliente Novo' },
      idempotencyKey: newIdempotencyKey('deprecated'),
    });
    expect(without.status).toBe(201);
    expect(deprecationHeaders(without.headers)).toEqual(NONE);

    const route = await apiCall(base, second.key, '/products?per_page=5');
    expect(route.status).toBe(200);
    expect(route.headers.deprecation).toBe(`@${Date.parse('2026-05-01T00:00:00Z') / 1000}`);
    expect(route.headers.sunset).toBe('Tue, 30 Nov 2027 00:00:00 GMT');
    expect(deprecationHeaders((await apiCall(base, second.key, '/payments')).headers)).toEqual(NONE);
  });

  it('the request log records each use, and `deprecations usage` lists the keys of each company that used them', async () => {
    const used = await apiCall(base, second.key, '/customers?search=loja&type=company');
    expect(used.headers.deprecation).toBeDefined();
    await app.requestLog.flush();
    const [row] = await database.handle.db
      .select()
      .from(requestLog)
      .where(eq(requestLog.requestId, used.headers['x-request-id'] as string));
    expect(row?.deprecatedUse).toEqual(['GET /customers?search']);
    const plain = await apiCall(base, second.key, '/customers');
    await app.requestLog.flush();
    const [plainRow] = await database.handle.db
      .select()
      .from(requestLog)
      .where(eq(requestLog.requestId, plain.headers['x-request-id'] as string));
    expect(plainRow?.deprecatedUse).toBeNull();

    const usage = await executeOperation(operationSetup(database.handle), 'deprecations.usage', {}, 'test');
    expect(usage.days).toBe(30);
    expect(
      usage.uses.map(({ item, company_id, api_key_id, requests }) => ({
        item,
        company_id,
        api_key_id,
        requests,
      })),
    ).toEqual([
      {
        item: 'GET /customers?search',
        company_id: first.companyId,
        api_key_id: first.apiKey.id,
        requests: 1,
      },
      {
        item: 'GET /customers?search',
        company_id: second.companyId,
        api_key_id: second.apiKey.id,
        requests: 1,
      },
      { item: 'GET /products', company_id: second.companyId, api_key_id: second.apiKey.id, requests: 1 },
      {
        item: 'POST /customers body.contact_number',
        company_id: first.companyId,
        api_key_id: first.apiKey.id,
        requests: 1,
      },
    ]);
    expect(usage.uses[2]).toMatchObject({
      company_name: 'Loja Clássica, Lda',
      api_key: second.apiKey.display_prefix,
    });
    expect(usage.uses[0]?.last_used_at).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/,
    );
    const text = COMMANDS.find((command) => command.name === 'deprecations usage')?.text(usage as never, {
      language: 'pt',
      t: translator('pt'),
      apiBaseUrl: base,
    });
    expect(text).toContain('POST /customers body.contact_number');
    expect(text).toContain('Loja Clássica, Lda');
  });
});
