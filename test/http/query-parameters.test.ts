// decisions.md, lists: "Unknown query parameters give 422 invalid_query_parameter naming the
// parameter, the hint listing the route's parameters (a typo such as stauts=paid must never
// silently return every invoice)", on every one of the 14 routes (a route without parameters
// takes none); and "A hint that shows an example timestamp shows one that works when pasted into
// a URL".
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { createRouteFixtures, pathOf, ROUTES, type RouteFixtures, routeName } from '../helpers/routes.js';

interface DocumentedParameter {
  name: string;
  in: string;
}

/** The query parameters openapi.json documents for an operation. */
function documentedQuery(operationId: string): string[] {
  const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
  for (const methods of Object.values(document.paths) as Record<
    string,
    { operationId: string; parameters?: DocumentedParameter[] }
  >[]) {
    for (const operation of Object.values(methods)) {
      if (operation.operationId !== operationId) continue;
      return (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    }
  }
  throw new Error(`no operation ${operationId}`);
}

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

function send(route: (typeof ROUTES)[number], query: string) {
  const path = pathOf(route, route.id ? fixtures[route.id] : undefined);
  return api(ctx.app, route.method, `${path}${query}`, {
    key: tenant.key,
    ...(route.body ? { idempotencyKey: newIdempotencyKey('query'), body: route.body(fixtures) } : {}),
  });
}

describe('unknown query parameters', () => {
  it.each(ROUTES.map((route) => [routeName(route), route] as const))(
    'decisions.md "Unknown query parameters give 422 invalid_query_parameter naming the parameter, the hint listing the route\'s parameters": %s',
    async (_name, route) => {
      const res = await send(route, '?stauts=paid');
      expect(res.statusCode, res.body).toBe(422);
      const { error } = res.json();
      expect(error.code).toBe('invalid_query_parameter');
      expect(error.message).toContain('"stauts"');
      const parameters = documentedQuery(route.operationId);
      expect(error.hint).toBe(
        parameters.length > 0
          ? `Parâmetros deste pedido: ${parameters.join(', ')}.`
          : 'Este pedido não aceita parâmetros de consulta.',
      );
    },
  );

  it('decisions.md: "a typo such as stauts=paid must never silently return every invoice"', async () => {
    const draft = (await api(ctx.app, 'GET', '/invoices?status=draft', { key: tenant.key })).json();
    const typo = await api(ctx.app, 'GET', '/invoices?stauts=draft', { key: tenant.key });
    expect(typo.statusCode).toBe(422);
    expect(typo.json().error.message).toContain('"stauts"');
    // Known parameters next to the unknown one do not save it; every unknown one is named.
    const two = await api(ctx.app, 'GET', '/invoices?status=draft&per_pag=5&sort=invoice_date&colour=red', {
      key: tenant.key,
    });
    expect(two.statusCode).toBe(422);
    expect(two.json().error.message).toContain('"per_pag", "colour"');
    // Spelled right, the filter applies: fewer than every invoice.
    const all = (await api(ctx.app, 'GET', '/invoices', { key: tenant.key })).json();
    expect(draft.pagination.total).toBeLessThan(all.pagination.total);
  });

  it('nothing is written when a write carries an unknown parameter', async () => {
    const before = (await api(ctx.app, 'GET', '/customers?per_page=1', { key: tenant.key })).json().pagination
      .total;
    const res = await api(ctx.app, 'POST', '/customers?dry_run=true', {
      key: tenant.key,
      idempotencyKey: newIdempotencyKey('query'),
      body: { name: 'Não Criado' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('invalid_query_parameter');
    const after = (await api(ctx.app, 'GET', '/customers?per_page=1', { key: tenant.key })).json().pagination
      .total;
    expect(after).toBe(before);
  });
});

describe('hints with example timestamps', () => {
  it.each(['/customers', '/products', '/invoices'])(
    'decisions.md "A hint that shows an example timestamp shows one that works when pasted into a URL": %s',
    async (path) => {
      const bad = await api(ctx.app, 'GET', `${path}?updated_since=yesterday`, { key: tenant.key });
      expect(bad.statusCode).toBe(422);
      const hint: string = bad.json().error.hint;
      const examples = hint.match(/\d{4}-\d{2}-\d{2}T[^\s,)]+/g) ?? [];
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        // Pasted as shown, character for character.
        const res = await api(ctx.app, 'GET', `${path}?updated_since=${example}`, { key: tenant.key });
        expect(res.statusCode, `${example}: ${res.body}`).toBe(200);
      }
    },
  );
});
