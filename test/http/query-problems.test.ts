// issue 30: a list query with several bad parameters names every one in its single 422
// invalid_query_parameter (as a body's 422 names every field), each with its own hint; the
// envelope keeps the contract's shape (no `errors` map: only validation_failed has one).
// Through real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';

describe(`every bad query parameter named at once (${testStorage()})`, () => {
  let ctx: TestContext;
  let base: string;
  let tenant: Tenant;

  beforeAll(async () => {
    ctx = await startTestApp();
    base = `${await ctx.app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
    tenant = await createTenant(ctx.db);
  });
  afterAll(() => ctx?.close());

  async function get(path: string) {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${tenant.key}` } });
    return { status: res.status, error: (await res.json()).error };
  }

  it('three bad values: each named in the message, each with its hint', async () => {
    const { status, error } = await get('/invoices?sort=colour&page=0&status=open');
    expect(status).toBe(422);
    expect(error.code).toBe('invalid_query_parameter');
    expect(error).not.toHaveProperty('errors');
    expect(error.message).toBe('Os parâmetros de consulta "page", "sort" e "status" têm valores inválidos.');
    expect(error.hint).toContain('"page": Use um número inteiro entre 1 e');
    expect(error.hint).toMatch(/Valores válidos para "sort": [a-z_]+, /);
    expect(error.hint).toMatch(/Valores válidos para "status": [a-z_]+, /);
  });

  it('a value refused for its text (not an integer) and one refused by the schema, together', async () => {
    const { status, error } = await get('/customers?per_page=abc&order=up');
    expect(status).toBe(422);
    expect(error.message).toBe('Os parâmetros de consulta "per_page" e "order" têm valores inválidos.');
    expect(error.hint).toContain('"per_page": Use um número inteiro maior ou igual a 1');
    expect(error.hint).toContain('Valores válidos para "order": asc, desc.');
  });

  it('an unknown parameter and a bad value, together', async () => {
    const { status, error } = await get('/invoices?stauts=paid&page=-1');
    expect(status).toBe(422);
    expect(error.message).toBe(
      'O parâmetro de consulta "stauts" não existe neste pedido. O parâmetro de consulta "page" tem um valor inválido.',
    );
    expect(error.hint).toMatch(
      /^Parâmetros deste pedido: page, per_page, .* Use um número inteiro entre 1 e/,
    );
  });

  it('one bad value answers as before: that parameter alone', async () => {
    const { error } = await get('/products?order=sideways');
    expect(error.message).toBe('O parâmetro de consulta "order" tem um valor inválido.');
    expect(error.hint).toBe('Valores válidos para "order": asc, desc.');
  });
});
