// A path id the router used to refuse itself (Fastify's 400 FST_ERR_BAD_URL for invalid
// percent-encoding, 414 for more than 100 characters, both echoing the URL and without
// X-Request-Id) is a malformed id like any other: 404 resource_not_found with the envelope, after
// the earlier steps of the order of checks.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/app.js';
import {
  api,
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';
import { createRouteFixtures, ID_ROUTES, pathOf, type RouteFixtures, routeName } from '../helpers/routes.js';

const MALFORMED = [
  '%FF',
  '%',
  '%zz',
  '%E0%A4',
  '%ED%A0%80',
  `12%FF`,
  'x'.repeat(101),
  '1'.repeat(150),
  '7'.repeat(5000),
];

describe(`malformed path ids on every id route (${testStorage()})`, () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let fixtures: RouteFixtures;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
    fixtures = await createRouteFixtures(ctx.app, ctx.db, tenant);
  });
  afterAll(() => ctx.close());

  const cases = ID_ROUTES.flatMap((route) =>
    MALFORMED.map((id) => ({
      route,
      id,
      name: `${routeName(route)} id=${id.slice(0, 12)}${id.length > 12 ? `...(${id.length})` : ''}`,
    })),
  );

  it.each(cases)('$name -> 404 resource_not_found', async ({ route, id }) => {
    const path = route.path.replace('{id}', id);
    const res = await api(ctx.app, route.method, path, {
      key: tenant.key,
      ...(route.body ? { body: route.body(fixtures), idempotencyKey: newIdempotencyKey('path-id') } : {}),
    });
    expect(res.statusCode).toBe(404);
    const error = res.json().error;
    expect(error.code).toBe('resource_not_found');
    expect(error.request_id).toBe(res.headers['x-request-id']);
    expect(res.body).not.toContain(id.slice(0, 12));
  });

  it('keeps the order of checks: without a key it is 401, from a browser 403', async () => {
    for (const route of ID_ROUTES) {
      const path = route.path.replace('{id}', '%FF');
      expect((await api(ctx.app, route.method, path)).json().error.code).toBe('invalid_api_key');
      const browser = await api(ctx.app, route.method, path, {
        key: tenant.key,
        headers: { origin: 'https://x.example' },
      });
      expect(browser.json().error.code).toBe('browser_use_forbidden');
    }
  });

  it('a valid id next to a broken query string is still found; the unknown parameter is the 422 of decisions.md ("Unknown query parameters give 422 invalid_query_parameter")', async () => {
    const route = ID_ROUTES[0]!;
    const res = await api(ctx.app, 'GET', `${pathOf(route, fixtures[route.id!])}?x=%FF`, { key: tenant.key });
    // Not the 404 of a broken id, not a 400 or 500 of a broken query string.
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('invalid_query_parameter');
    expect(res.json().error.message).toContain('"x"');
  });

  it('paths that are no route stay the generic 404', async () => {
    for (const path of ['/customers/%FF/x', '/ping%FF', '/%FF']) {
      const res = await api(ctx.app, 'GET', path, { key: tenant.key });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    }
  });

  it('over a real connection too', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as AddressInfo;
    for (const id of ['%FF', '9'.repeat(5000)]) {
      const res = await fetch(`http://127.0.0.1:${port}${API_PREFIX}/customers/${id}`, {
        headers: { authorization: `Bearer ${tenant.key}` },
      });
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body.error.code).toBe('resource_not_found');
      expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
    }
  });
});
