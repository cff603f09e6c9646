// issue 30: every 401 carries WWW-Authenticate (RFC 6750), saying how keys are sent (contract,
// authentication: "Authorization: Bearer <API_KEY>"): the scheme alone without a key, with
// error="invalid_token" for a key that does not work (unknown, malformed, expired, revoked).
// Real HTTP, on every one of the 14 routes; the response is checked against openapi.json.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys } from '../../src/db/schema.js';
import { createApiKey, revokeApiKey } from '../../src/operations/api-keys.js';
import { asOperator, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';
import { createRouteFixtures, pathOf, ROUTES, type RouteFixtures, routeName } from '../helpers/routes.js';

const CHALLENGE = 'Bearer realm="partner-api"';
const INVALID = 'Bearer realm="partner-api", error="invalid_token"';

describe(`WWW-Authenticate on every 401 (${testStorage()})`, () => {
  let ctx: TestContext;
  let origin: string;
  let tenant: Tenant;
  let fixtures: RouteFixtures;
  let expiredKey: string;
  let revokedKey: string;

  beforeAll(async () => {
    ctx = await startTestApp();
    origin = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTenant(ctx.db);
    fixtures = await createRouteFixtures(ctx.app, ctx.db, tenant);
    const expired = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId, days: 1 });
    await ctx.db
      .update(apiKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(sql`id = ${expired.id}`);
    expiredKey = expired.key;
    const revoked = await createApiKey(asOperator(ctx.db), { companyId: tenant.companyId });
    await revokeApiKey(asOperator(ctx.db), revoked.id);
    revokedKey = revoked.key;
  });
  afterAll(() => ctx?.close());

  async function call(route: (typeof ROUTES)[number], authorization: string | null) {
    const path = pathOf(route, route.id ? fixtures[route.id] : undefined);
    const res = await fetch(`${origin}/api/v1/partner${path}`, {
      method: route.method,
      headers: {
        ...(authorization === null ? {} : { authorization }),
        ...(route.body ? { 'content-type': 'application/json', 'idempotency-key': 'www-auth-0001' } : {}),
      },
      ...(route.body ? { body: JSON.stringify(route.body(fixtures)) } : {}),
    });
    return {
      status: res.status,
      challenge: res.headers.get('www-authenticate'),
      code: (await res.json()).error?.code,
    };
  }

  it.each(ROUTES.map((route) => [routeName(route), route] as const))('%s', async (_name, route) => {
    expect(await call(route, null)).toEqual({ status: 401, challenge: CHALLENGE, code: 'invalid_api_key' });
    expect(await call(route, 'Basic dXNlcjpwYXNz')).toEqual({
      status: 401,
      challenge: INVALID,
      code: 'invalid_api_key',
    });
    expect(await call(route, 'Bearer svc_sk_live_nope')).toEqual({
      status: 401,
      challenge: INVALID,
      code: 'invalid_api_key',
    });
  });

  it('expired and revoked keys too; a good key gets no challenge', async () => {
    const ping = ROUTES.find((route) => route.method === 'GET' && pathOf(route) === '/ping');
    if (!ping) throw new Error('no /ping route');
    expect(await call(ping, `Bearer ${expiredKey}`)).toEqual({
      status: 401,
      challenge: INVALID,
      code: 'api_key_expired',
    });
    expect(await call(ping, `Bearer ${revokedKey}`)).toEqual({
      status: 401,
      challenge: INVALID,
      code: 'api_key_revoked',
    });
    const ok = await call(ping, `Bearer ${tenant.key}`);
    expect(ok).toMatchObject({ status: 200, challenge: null });
  });
});
