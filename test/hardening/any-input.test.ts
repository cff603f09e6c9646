// Property: whatever a key holder sends to any of the 14 routes (generated bodies, query strings,
// path ids and headers), the answer is a 2xx, one of the contract's 15 error codes with its
// status and envelope, or the framework's generic 404, and never a 5xx. Runs on both storages.
// PROPERTY_RUNS sets the number of generated requests per route (default below; CI keeps it
// well under a minute); a failure prints the seed and the smallest request that fails.
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/app.js';
import { ApiError, ERROR_CODES, type ErrorCode } from '../../src/errors.js';
import { createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';
import {
  createRouteFixtures,
  ROUTES,
  type RouteCase,
  type RouteFixtures,
  routeName,
} from '../helpers/routes.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);

const FIELDS: Record<string, string[]> = {
  '/customers': ['name', 'type', 'email', 'phone', 'contact_number', 'nuit', 'address'],
  '/products': [
    'name',
    'type',
    'inventory',
    'price',
    'description',
    'sku',
    'unity',
    'pos_price',
    'vat_included',
    'reorder_level',
    'is_for_sale',
    'is_for_purchase',
    'tax_id',
  ],
  '/invoices': [
    'customer_id',
    'invoice_date',
    'items',
    'due_date',
    'reference',
    'notes',
    'currency',
    'exchange_rate',
  ],
};
const LINE_FIELDS = ['product_id', 'name', 'description', 'quantity', 'price', 'discount', 'tax_id'];
const HOSTILE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '', 'a.b', '0'];
const QUERY_NAMES = [
  'page',
  'per_page',
  'sort',
  'order',
  'search',
  'type',
  'is_for_sale',
  'updated_since',
  'status',
  'customer_id',
  'invoice_id',
  'date_from',
  'date_to',
];

/** A number written as raw JSON text (1e400 parses to Infinity, -0, huge integers). */
const RAW = (text: string) => `\u0001RAW:${text}\u0001`;
const toJson = (value: unknown) =>
  JSON.stringify(value).replace(/"\\u0001RAW:([^"\\]*)\\u0001"/g, (_match, raw: string) => raw);

const hostileText = fc.string({
  unit: fc.constantFrom('\u0000', '\ud800', '\udfff', 'a', 'é', '\u{1F600}', '"', '\\', '%', ' ', '\n', '_'),
  maxLength: 8,
});
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  hostileText,
  fc.string({ maxLength: 300 }),
);
const specialText = fc.constantFrom(
  '',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e20',
  '0x10',
  '-0',
  ' 1',
  '1 ',
  '2147483648',
  '-1',
  '0',
  '0000-01-01',
  '2026-02-30',
  '2024-02-29',
  '9999-12-31',
  '2026-11-20',
  '2026-13-01',
  '2026-11-20T10:00:00+99:99',
  '2026-11-20T25:00:00Z',
  '2026-11-20T10:00:00.123456789-14:00',
  'asc',
  'desc',
  'name',
  'price',
  'draft',
  'paid',
  'true',
  'false',
  'GOODS',
  'KIT',
  'individual',
  'company',
  'MZN',
  'EUR',
  'INVENTORY',
  'NON_INVENTORY',
  'a@b.co',
  'A@B.CO',
);
const specialNumber = fc.constantFrom(
  RAW('1e400'),
  RAW('-1e400'),
  RAW('-0'),
  RAW('1E2'),
  RAW('123456789012345678901234567890'),
  0,
  -1,
  1,
  0.1,
  0.005,
  100.125,
  2147483647,
  2147483648,
  2 ** 53,
  -(2 ** 53),
  1e14,
  1e15,
  1e-7,
  Number('99999999999999.99'), // the largest amount, as JSON carries it
);
const scalar = fc.oneof(
  anyText,
  specialText,
  specialNumber,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const jsonish = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.oneof(anyText, fc.constantFrom(...HOSTILE_NAMES)), scalar, { maxKeys: 3 }),
  },
);

type Mutation = { kind: 'set'; field: string; value: unknown } | { kind: 'delete'; field: string };

function mutations(fields: string[]) {
  const field = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fields) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_NAMES) },
    { weight: 1, arbitrary: anyText },
  );
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('set' as const), field, value: jsonish }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), field }) },
  );
  return fc.array(mutation, { maxLength: 3 });
}

function applied(base: Record<string, unknown>, changes: Mutation[]): Record<string, unknown> {
  const body: Record<string, unknown> = { ...base };
  for (const change of changes) {
    if (change.kind === 'delete') delete body[change.field];
    else
      Object.defineProperty(body, change.field, {
        value: change.value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
  }
  return body;
}

/** Percent-encodes the UTF-8 bytes of text (lone surrogates become U+FFFD, as a client would send). */
function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}
const rawEscape = fc.constantFrom('%FF', '%00', '%', '%zz', '%E0%A4', '%C0%80', '%ED%A0%80', '+', '%2B');

const queryValue = fc.oneof(
  { weight: 3, arbitrary: specialText.map(encode) },
  { weight: 3, arbitrary: anyText.map(encode) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.tuple(anyText, rawEscape).map(([text, suffix]) => `${encode(text)}${suffix}`) },
);
const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...QUERY_NAMES) },
        { weight: 1, arbitrary: anyText.map(encode) },
      ),
      queryValue,
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`,
  );

const pathId = (fixtureId: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(String(fixtureId)) },
    { weight: 2, arbitrary: fc.integer().map(String) },
    { weight: 2, arbitrary: specialText.map(encode) },
    { weight: 2, arbitrary: anyText.map(encode) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%FF',
        '%00',
        '%zz',
        '%',
        '1'.repeat(101),
        'x'.repeat(150),
        `${fixtureId}%00`,
      ),
    },
  );

const idempotencyKey = fc.oneof(
  { weight: 8, arbitrary: fc.uuid().map((id) => `prop-${id}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(undefined, '', 'short', 'x'.repeat(200), 'bad key!', 'prop-reused-key-0001'),
  },
);

interface Generated {
  id: string;
  query: string;
  body: string | undefined;
  contentType: string;
  idempotencyKey: string | undefined;
  auth: 'valid' | 'test' | 'none' | 'garbage';
  origin: boolean;
}

function requestFor(route: RouteCase, fixtures: RouteFixtures): fc.Arbitrary<Generated> {
  const resource = `/${route.path.split('/')[1]}`;
  const fields = FIELDS[resource] ?? [];
  const base = route.body ? (route.body(fixtures) as Record<string, unknown>) : undefined;
  const body: fc.Arbitrary<string | undefined> = base
    ? fc.oneof(
        {
          weight: 6,
          arbitrary: fc.tuple(mutations(fields), mutations(LINE_FIELDS)).map(([top, line]) => {
            const changed = applied(base, top);
            if (
              resource === '/invoices' &&
              Array.isArray(changed.items) &&
              typeof changed.items[0] === 'object'
            ) {
              changed.items = [
                applied(changed.items[0] as Record<string, unknown>, line),
                ...changed.items.slice(1),
              ];
            }
            return toJson(changed);
          }),
        },
        { weight: 1, arbitrary: jsonish.map(toJson) },
        {
          weight: 1,
          arbitrary: fc.oneof(anyText, fc.constantFrom('', '{', '{"a":', 'null', '[]', '{"name":"x"}{}')),
        },
      )
    : fc.constant(undefined);
  return fc.record({
    id: route.id ? pathId(fixtures[route.id]) : fc.constant(''),
    query: queryString,
    body,
    contentType: fc.oneof(
      { weight: 12, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'text/plain',
          'application/json; charset=latin1',
          'application/x-www-form-urlencoded',
        ),
      },
    ),
    idempotencyKey,
    auth: fc.oneof(
      { weight: 12, arbitrary: fc.constant('valid' as const) },
      { weight: 1, arbitrary: fc.constantFrom('test' as const, 'none' as const, 'garbage' as const) },
    ),
    origin: fc.oneof(
      { weight: 30, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
  });
}

const STATUS_OF = Object.fromEntries(
  ERROR_CODES.map((code) => [code, new ApiError(code).statusCode]),
) as Record<ErrorCode, number>;

/** The property: a 2xx, an envelope with one of the 15 codes and its status, or the generic 404. */
function expectContractAnswer(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBeLessThan(500);
  const requestId = res.headers['x-request-id'];
  expect(requestId).toMatch(/^req_/);
  if (res.statusCode >= 200 && res.statusCode < 300) return;
  const body = JSON.parse(res.body);
  if (res.statusCode === 404 && body.error === 'Not Found') {
    expect(body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    return;
  }
  const error = body.error;
  expect(ERROR_CODES, res.body).toContain(error?.code);
  expect(res.statusCode, res.body).toBe(STATUS_OF[error.code as ErrorCode]);
  expect(error.request_id).toBe(requestId);
  expect(error.doc_url).toMatch(new RegExp(`/errors#${error.code}$`));
  expect(typeof error.message).toBe('string');
  expect(typeof error.hint).toBe('string');
  const allowed = ['code', 'message', 'hint', 'doc_url', 'request_id'];
  if (error.code === 'validation_failed') allowed.push('errors');
  for (const key of Object.keys(error)) expect(allowed).toContain(key);
}

describe(`any input to any route: never a 5xx (${testStorage()})`, () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let testKey: string;
  let fixtures: RouteFixtures;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
    testKey = (await createTenant(ctx.db, { name: 'Modo Teste', mode: 'test' })).key;
    fixtures = await createRouteFixtures(ctx.app, ctx.db, tenant);
  });
  afterAll(() => ctx.close());

  it.each(ROUTES.map((route) => ({ route, name: routeName(route) })))('$name', async ({ route }) => {
    await fc.assert(
      fc.asyncProperty(requestFor(route, fixtures), async (generated) => {
        const headers: Record<string, string> = {};
        if (generated.auth === 'valid') headers.authorization = `Bearer ${tenant.key}`;
        if (generated.auth === 'test') headers.authorization = `Bearer ${testKey}`;
        if (generated.auth === 'garbage') headers.authorization = 'Bearer svc_sk_live_not-a-real-key';
        if (generated.origin) headers.origin = 'https://example.com';
        if (generated.idempotencyKey !== undefined) headers['idempotency-key'] = generated.idempotencyKey;
        if (generated.body !== undefined) headers['content-type'] = generated.contentType;
        const url = `${API_PREFIX}${route.path.replace('{id}', generated.id)}${generated.query}`;
        const res = await ctx.app.inject({
          method: route.method,
          url,
          headers,
          ...(generated.body !== undefined ? { payload: generated.body } : {}),
        });
        expectContractAnswer(res);
      }),
      { numRuns: RUNS },
    );
  });
});
