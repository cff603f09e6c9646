// Inputs that used to reach the database and answer 500 (writing the failing SQL with its
// parameters to the error log): each now gets the contract's 422 naming the field, changes
// nothing, stores no idempotency record, and writes nothing at error level to the log.
import { Writable } from 'node:stream';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { customers, idempotencyKeys, invoices, products } from '../../src/db/schema.js';
import {
  api,
  createTenant,
  GENEROUS_LIMITS,
  newIdempotencyKey,
  TEST_DOCS_URL,
  type Tenant,
} from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { createRouteFixtures, type RouteFixtures } from '../helpers/routes.js';

interface BodyCase {
  name: string;
  method: 'POST' | 'PUT';
  path: (f: RouteFixtures) => string;
  /** Raw JSON text: the way a hostile client would write it. */
  raw: (f: RouteFixtures) => string;
  field: string;
}

interface QueryCase {
  path: string;
  parameter: string;
}

const invoice = (f: RouteFixtures, fields: string, line = '') =>
  `{"customer_id":${f.customerId},${fields}"items":[{"product_id":${f.productId},"quantity":1,"price":10${line}}]}`;
const product = (extra: string) => `{"name":"Sal","type":"GOODS","inventory":"INVENTORY","price":5${extra}}`;

const BODY_CASES: BodyCase[] = [
  {
    name: 'a field named constructor',
    method: 'POST',
    path: () => '/customers',
    raw: () => '{"name":"A","constructor":1}',
    field: 'constructor',
  },
  {
    name: 'a field named __proto__',
    method: 'POST',
    path: () => '/customers',
    raw: () => '{"name":"A","__proto__":{"x":1}}',
    field: '__proto__',
  },
  {
    name: 'a field named toString',
    method: 'PUT',
    path: (f) => `/products/${f.productId}`,
    raw: () => product(',"toString":"x"'),
    field: 'toString',
  },
  {
    name: 'a field named constructor in a line',
    method: 'POST',
    path: () => '/invoices',
    raw: (f) => invoice(f, '"invoice_date":"2026-11-20",', ',"constructor":{}'),
    field: 'items.0.constructor',
  },
  {
    name: 'NUL in a name',
    method: 'POST',
    path: () => '/customers',
    raw: () => '{"name":"Ana\\u0000Cossa"}',
    field: 'name',
  },
  {
    name: 'NUL in an e-mail (checked against the database by the own rules)',
    method: 'POST',
    path: () => '/customers',
    raw: () => '{"name":"Ana","email":"ana\\u0000@x.co.mz"}',
    field: 'email',
  },
  {
    name: 'NUL in an address (PUT)',
    method: 'PUT',
    path: (f) => `/customers/${f.customerId}`,
    raw: () => '{"address":"Av. \\u0000 Julius Nyerere"}',
    field: 'address',
  },
  {
    name: 'NUL in a sku',
    method: 'POST',
    path: () => '/products',
    raw: () => product(',"sku":"\\u0000"'),
    field: 'sku',
  },
  {
    name: 'NUL in a line description',
    method: 'POST',
    path: () => '/invoices',
    raw: (f) => invoice(f, '"invoice_date":"2026-11-20",', ',"description":"a\\u0000"'),
    field: 'items.0.description',
  },
  {
    name: 'year 0000 in invoice_date',
    method: 'POST',
    path: () => '/invoices',
    raw: (f) => invoice(f, '"invoice_date":"0000-01-01",'),
    field: 'invoice_date',
  },
  {
    name: 'year 0000 in due_date',
    method: 'POST',
    path: () => '/invoices',
    raw: (f) => invoice(f, '"invoice_date":"2026-11-20","due_date":"0000-12-31",'),
    field: 'due_date',
  },
  {
    name: 'a lone high surrogate in a name',
    method: 'POST',
    path: () => '/customers',
    raw: () => '{"name":"Jo\\ud800ao"}',
    field: 'name',
  },
  {
    name: 'a lone low surrogate in notes',
    method: 'POST',
    path: () => '/invoices',
    raw: (f) => invoice(f, '"invoice_date":"2026-11-20","notes":"\\udc00",'),
    field: 'notes',
  },
  {
    name: 'a lone surrogate in a product description',
    method: 'PUT',
    path: (f) => `/products/${f.productId}`,
    raw: () => product(',"description":"x\\udbff"'),
    field: 'description',
  },
];

const QUERY_CASES: QueryCase[] = [
  { path: '/customers?search=a%00b', parameter: 'search' },
  { path: '/products?search=%00', parameter: 'search' },
  { path: '/customers?page=Infinity', parameter: 'page' },
  { path: '/payments?page=-Infinity', parameter: 'page' },
  { path: '/invoices?customer_id=Infinity', parameter: 'customer_id' },
  { path: '/payments?invoice_id=-Infinity', parameter: 'invoice_id' },
  { path: '/products?page=1e20', parameter: 'page' },
  { path: '/customers?page=100000000000000000000', parameter: 'page' },
  { path: '/invoices?per_page=Infinity', parameter: 'per_page' },
  { path: '/invoices?date_from=0000-01-01', parameter: 'date_from' },
  { path: '/invoices?date_to=0000-12-31', parameter: 'date_to' },
  { path: '/payments?date_from=0000-06-15', parameter: 'date_from' },
  { path: '/payments?date_to=0000-01-01', parameter: 'date_to' },
  { path: '/customers?updated_since=2026-01-01T00:00:00%2B99:99', parameter: 'updated_since' },
  { path: '/products?updated_since=2026-01-01T00:00:00-15:00', parameter: 'updated_since' },
  { path: '/invoices?updated_since=0000-01-01', parameter: 'updated_since' },
];

describe(`hostile inputs answer 422 and change nothing (${testStorage()})`, () => {
  let database: TestDatabase;
  let app: App;
  let tenant: Tenant;
  let fixtures: RouteFixtures;
  const logLines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    tenant = await createTenant(database.handle.db);
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp({
      config: loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS }),
      database: database.handle,
      logger: { level: 'info', stream },
    });
    fixtures = await createRouteFixtures(app, database.handle.db, tenant);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  async function snapshot() {
    const db = database.handle.db;
    const n = async (table: typeof customers | typeof products | typeof invoices | typeof idempotencyKeys) =>
      (await db.select({ n: count() }).from(table))[0]?.n;
    return {
      customers: await db.select().from(customers),
      products: await db.select().from(products),
      invoices: await n(invoices),
      idempotencyKeys: await n(idempotencyKeys),
    };
  }

  function expectQuietLog(from: number) {
    const lines = logLines.slice(from);
    for (const line of lines) expect(JSON.parse(line).level).toBeLessThan(50);
    expect(lines.join('\n')).not.toMatch(/Failed query|params:/);
  }

  it.each(BODY_CASES)('body: $name -> 422 validation_failed naming $field', async (c) => {
    const before = await snapshot();
    const logFrom = logLines.length;
    const res = await api(app, c.method, c.path(fixtures), {
      key: tenant.key,
      idempotencyKey: newIdempotencyKey('hostile'),
      rawBody: c.raw(fixtures),
    });
    expect(res.statusCode).toBe(422);
    const error = res.json().error;
    expect(error.code).toBe('validation_failed');
    expect(error.request_id).toBe(res.headers['x-request-id']);
    expect(Object.keys(error.errors)).toContain(c.field);
    expect(await snapshot()).toEqual(before);
    expectQuietLog(logFrom);
  });

  it.each(QUERY_CASES)('query: $path -> 422 invalid_query_parameter naming $parameter', async (c) => {
    const logFrom = logLines.length;
    const res = await api(app, 'GET', c.path, { key: tenant.key });
    expect(res.statusCode).toBe(422);
    const error = res.json().error;
    expect(error.code).toBe('invalid_query_parameter');
    expect(error.message).toContain(`"${c.parameter}"`);
    expect(error.request_id).toBe(res.headers['x-request-id']);
    expectQuietLog(logFrom);
  });

  it('body: bytes that are not UTF-8 -> 422 validation_failed on the body, nothing stored as U+FFFD', async () => {
    const before = await snapshot();
    for (const bytes of [[0xed, 0xa0, 0x80], [0xff], [0xc0, 0x80]]) {
      const payload = Buffer.concat([Buffer.from('{"name":"Jo'), Buffer.from(bytes), Buffer.from('ao"}')]);
      const res = await app.inject({
        method: 'POST',
        url: `${API_PREFIX}/customers`,
        headers: {
          authorization: `Bearer ${tenant.key}`,
          'content-type': 'application/json',
          'idempotency-key': newIdempotencyKey('hostile'),
        },
        payload,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
      expect(Object.keys(res.json().error.errors)).toEqual(['body']);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('still takes what is valid near those edges', async () => {
    const ok = [
      '/customers?page=2147483647',
      '/customers?per_page=100000000000000000000',
      '/invoices?date_from=1000-01-01&date_to=9999-12-31',
      '/customers?updated_since=2026-01-01T00:00:00%2B14:00',
      '/products?updated_since=2026-01-01T00:00:00-12:30',
      '/customers?search=Jo%C3%A3o%20%F0%9F%98%80',
      '/invoices?customer_id=2147483647',
    ];
    for (const path of ok)
      expect((await api(app, 'GET', path, { key: tenant.key })).statusCode, path).toBe(200);
    // A surrogate pair (an emoji written as two escapes) is a character like any other.
    const res = await api(app, 'POST', '/customers', {
      key: tenant.key,
      idempotencyKey: newIdempotencyKey('hostile'),
      rawBody: '{"name":"Loja \\ud83d\\ude00"}',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.name).toBe('Loja \u{1F600}');
  });
});
