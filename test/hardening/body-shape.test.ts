// decisions.md: malformed JSON "or a body over the size limit: 422 validation_failed", and the
// guide's rule that bad input changes nothing and never answers 500. A body nested 10,000 levels
// deep (objects or arrays, anywhere in the body) or with tens of thousands of keys is refused
// with 422 validation_failed on every write route, before any of it is parsed or validated
// (src/http/body.ts): nothing is created or changed, no idempotency record is kept, and the same
// Idempotency-Key then works with a proper body.
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, idempotencyKeys, invoices, products } from '../../src/db/schema.js';
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from '../../src/http/body.js';
import {
  api,
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import {
  createRouteFixtures,
  pathOf,
  type RouteFixtures,
  routeName,
  WRITE_ROUTES,
} from '../helpers/routes.js';

const DEEP = 10_000;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const manyKeys = (keys: number) =>
  `{${Array.from({ length: keys }, (_, index) => `"k${index}":${index}`).join(',')}}`;

let ctx: TestContext;
let tenant: Tenant;
let fixtures: RouteFixtures;

beforeAll(async () => {
  ctx = await startTestApp();
  tenant = await createTenant(ctx.db);
  fixtures = await createRouteFixtures(ctx.app, ctx.db, tenant);
});
afterAll(async () => {
  await ctx?.close();
});

async function rowCounts(): Promise<number[]> {
  const tables = [customers, products, invoices, idempotencyKeys];
  return Promise.all(tables.map(async (table) => (await ctx.db.select({ n: count() }).from(table))[0]!.n));
}

describe.each(WRITE_ROUTES)('bodies too deep or too large on $method $path', (route) => {
  const valid = () => JSON.stringify(route.body!(fixtures));
  /** The route's valid body with one more field holding `value` (raw JSON). */
  const withField = (value: string) => `${valid().slice(0, -1)},"deep":${value}}`;

  const cases: [string, () => string][] = [
    [`objects nested ${DEEP} levels`, () => deepObject(DEEP)],
    [`arrays nested ${DEEP} levels`, () => deepArray(DEEP)],
    [`a field of a valid body holding arrays nested ${DEEP} levels`, () => withField(deepArray(DEEP))],
    [`a field of a valid body holding objects nested ${DEEP} levels`, () => withField(deepObject(DEEP))],
    ['60,000 keys in one object', () => manyKeys(60_000)],
    ['a valid body with 60,000 array elements in one field', () => withField(`[${'0,'.repeat(59_999)}0]`)],
  ];

  it.each(cases)(
    '%s: 422 validation_failed on the body, nothing changed, the key reusable',
    async (_name, raw) => {
      const before = await rowCounts();
      const key = newIdempotencyKey('shape');
      const path = pathOf(route, route.id ? fixtures[route.id] : undefined);
      const res = await api(ctx.app, route.method, path, {
        key: tenant.key,
        idempotencyKey: key,
        rawBody: raw(),
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      const { error } = res.json();
      expect(error.code).toBe('validation_failed');
      expect(Object.keys(error.errors)).toEqual(['body']);
      expect(await rowCounts()).toEqual(before);
      // Nothing was stored for the key: it works for the proper body.
      const retry = await api(ctx.app, route.method, path, {
        key: tenant.key,
        idempotencyKey: key,
        rawBody: valid(),
      });
      expect(retry.statusCode, retry.body).toBe(route.method === 'POST' ? 201 : 200);
    },
  );
});

describe('the bounds themselves', () => {
  const route = WRITE_ROUTES.find((candidate) => routeName(candidate) === 'POST /customers')!;

  it(`${MAX_BODY_DEPTH} levels and ${MAX_BODY_VALUES} values are judged field by field, one more is refused whole`, async () => {
    const post = (raw: string) =>
      api(ctx.app, 'POST', route.path, {
        key: tenant.key,
        idempotencyKey: newIdempotencyKey('shape'),
        rawBody: raw,
      });
    // At the bounds: the schema judges the fields (here: an unknown one).
    const atDepth = await post(`{"name":"A","x":${deepArray(MAX_BODY_DEPTH - 1)}}`);
    expect(atDepth.statusCode).toBe(422);
    expect(Object.keys(atDepth.json().error.errors)).toEqual(['x']);
    const atValues = await post(`{"name":"A","x":[${'0,'.repeat(MAX_BODY_VALUES - 2)}0]}`);
    expect(atValues.statusCode).toBe(422);
    expect(Object.keys(atValues.json().error.errors)).toEqual(['x']);
    // One more: the body as a whole.
    const deeper = await post(`{"name":"A","x":${deepArray(MAX_BODY_DEPTH)}}`);
    expect(deeper.json().error.errors).toEqual({ body: [expect.stringContaining(String(MAX_BODY_DEPTH))] });
    const more = await post(`{"name":"A","x":[${'0,'.repeat(MAX_BODY_VALUES - 1)}0]}`);
    expect(more.json().error.errors).toEqual({ body: [expect.stringContaining(String(MAX_BODY_VALUES))] });
    // Brackets, commas and quotes inside strings are text, not structure.
    const text = await post(JSON.stringify({ name: '[{,\\"'.repeat(50) }));
    expect(text.statusCode, text.body.slice(0, 300)).toBe(201);
    const long = await post(JSON.stringify({ name: 'A', x: '[{,\\"'.repeat(20_000) }));
    expect(long.json().error.errors).toEqual({ x: ['campo não permitido'] });
  });
});
