// issue 30: a body over the size limit answers 422 validation_failed naming the limit (1 MiB by
// default, BODY_LIMIT_BYTES otherwise) in its message and hint, and creates nothing. Real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';

async function postCustomer(base: string, key: string, body: string) {
  const res = await fetch(`${base}/customers`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': newIdempotencyKey('body-limit'),
    },
    body,
  });
  return { status: res.status, error: (await res.json()).error };
}

describe.each([
  ['the default', {}, '1 MiB (1048576 bytes)', 2 * 1024 * 1024],
  ['BODY_LIMIT_BYTES=65536', { BODY_LIMIT_BYTES: '65536' }, '64 KiB (65536 bytes)', 100_000],
])(`a body over the limit (%s) names it (${testStorage()})`, (_name, env, shown, size) => {
  let ctx: TestContext;
  let base: string;
  let tenant: Tenant;
  beforeAll(async () => {
    ctx = await startTestApp(env);
    base = `${await ctx.app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
    tenant = await createTenant(ctx.db);
  });
  afterAll(() => ctx?.close());

  it(`answers 422 validation_failed saying ${shown}, and creates nothing`, async () => {
    const body = JSON.stringify({ name: 'Grande', notes: 'x'.repeat(size) });
    const { status, error } = await postCustomer(base, tenant.key, body);
    expect(status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(error.errors.body).toEqual([`O corpo do pedido excede o tamanho máximo de ${shown}.`]);
    expect(error.hint).toContain(`no máximo ${shown.split(' (')[0]}`);
    const list = await fetch(`${base}/customers`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect((await list.json()).data).toEqual([]);
  });
});
