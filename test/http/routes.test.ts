// What must hold on every one of the 14 routes, driven by the route table (test/helpers/routes.ts):
// the app serves exactly those routes with those operationIds; a key without the route's scope is
// refused naming it, and one with just that scope passes; a test key reads but never writes;
// another company's id answers exactly like a missing one; a repeated write is replayed.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/keys/scopes.js';
import { createApiKey } from '../../src/operations/api-keys.js';
import {
  api,
  asOperator,
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import {
  createRouteFixtures,
  ID_ROUTES,
  pathOf,
  ROUTES,
  type RouteCase,
  type RouteFixtures,
  routeName,
  WRITE_ROUTES,
} from '../helpers/routes.js';

describe('every route', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let own: RouteFixtures;
  let foreign: RouteFixtures;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Papelaria Chamanculo' });
    const other = await createTenant(ctx.db, { name: 'Ferragens da Beira' });
    own = await createRouteFixtures(ctx.app, ctx.db, tenant);
    foreign = await createRouteFixtures(ctx.app, ctx.db, other);
  });
  afterAll(() => ctx.close());

  /** Sends the route's request with the given key; writes carry a valid body and a fresh key. */
  function call(route: RouteCase, key: string, options: { id?: number; idempotencyKey?: string } = {}) {
    const id = options.id ?? (route.id ? own[route.id] : undefined);
    return api(ctx.app, route.method, pathOf(route, id), {
      key,
      ...(route.body
        ? { body: route.body(own), idempotencyKey: options.idempotencyKey ?? newIdempotencyKey('routes') }
        : {}),
    });
  }

  async function keyWith(scopes: string[], mode: 'live' | 'test' = 'live'): Promise<string> {
    return (await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId, scopes, mode })).key;
  }

  it('the table is exactly the routes of openapi.json, with their operationIds', () => {
    const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    const served = Object.entries(document.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap(([path, operations]) =>
        Object.entries(operations).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
      )
      .sort();
    expect(served).toEqual(ROUTES.map((route) => `${routeName(route)} ${route.operationId}`).sort());
  });

  describe.each(ROUTES.map((route) => [routeName(route), route] as const))('%s', (_name, route) => {
    it('refuses a key without its scope, naming it; passes with that scope alone', async () => {
      const without = await keyWith(SCOPES.filter((scope) => scope !== route.scope));
      const refused = await call(route, without);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('insufficient_scope');
      expect(refused.json().error.hint).toContain(route.scope);

      const only = await keyWith([route.scope]);
      const passed = await call(route, only);
      expect(passed.statusCode, passed.body).toBe(route.method === 'POST' ? 201 : 200);
    });

    it(route.method === 'GET' ? 'answers a test key' : 'refuses a test key', async () => {
      const res = await call(route, await keyWith(['all'], 'test'));
      if (route.method === 'GET') {
        expect(res.statusCode, res.body).toBe(200);
      } else {
        expect(res.statusCode).toBe(403);
        expect(res.json().error.code).toBe('test_mode_read_only');
      }
    });
  });

  describe.each(ID_ROUTES.map((route) => [routeName(route), route] as const))('%s', (_name, route) => {
    it("answers another company's id exactly like a missing one", async () => {
      const id = route.id as keyof RouteFixtures;
      const foreignAnswer = await call(route, tenant.key, { id: foreign[id] });
      const missingAnswer = await call(route, tenant.key, { id: 2_000_000_000 });
      expect(foreignAnswer.statusCode).toBe(404);
      const withoutRequestId = (body: string) => ({ ...JSON.parse(body).error, request_id: undefined });
      expect(withoutRequestId(foreignAnswer.body)).toEqual(withoutRequestId(missingAnswer.body));
      expect(foreignAnswer.json().error.code).toBe('resource_not_found');
    });
  });

  describe.each(WRITE_ROUTES.map((route) => [routeName(route), route] as const))('%s', (_name, route) => {
    it('replays a repeated write byte for byte, creating nothing new', async () => {
      const idempotencyKey = newIdempotencyKey('replay');
      const first = await call(route, tenant.key, { idempotencyKey });
      const again = await call(route, tenant.key, { idempotencyKey });
      expect(again.statusCode).toBe(first.statusCode);
      expect(again.body).toBe(first.body);
      expect(again.headers['idempotency-replay']).toBe('true');
      expect(first.headers['idempotency-replay']).toBeUndefined();
    });
  });
});
