// Every list rule of customers: filters, sorts, orders, tie-breaker, pagination, bad parameters.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers } from '../../src/db/schema.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';

describe('customers: list rules', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  const names = (res: Awaited<ReturnType<typeof api>>) =>
    res.json().data.map((c: { name: string }) => c.name);
  const list = (query: string) => api(ctx.app, 'GET', `/customers${query}`, { key: tenant.key });

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
    const fixtures = [
      {
        name: 'Beatriz Nhantumbo',
        type: 'individual',
        email: 'beatriz@exemplo.co.mz',
        phone: '+258 84 111 2222',
      },
      { name: 'Águas da Região', type: 'company', email: 'geral@aguas.co.mz', nuit: '400999888' },
      { name: 'Carlos Mondlane', type: 'individual', email: 'carlos@exemplo.co.mz' },
      { name: 'Delta Construções', type: 'company', email: null },
    ];
    let i = 0;
    for (const body of fixtures) {
      const res = await api(ctx.app, 'POST', '/customers', {
        key: tenant.key,
        idempotencyKey: `fixture-${i++}-${Date.now()}`,
        body,
      });
      expect(res.statusCode).toBe(201);
    }
    // Known, distinct timestamps (one shared created_at to exercise the id tie-breaker).
    await ctx.db.execute(
      sql`update ${customers} set created_at = '2026-01-10T10:00:00Z', updated_at = '2026-03-01T10:00:00Z' where name = 'Beatriz Nhantumbo'`,
    );
    await ctx.db.execute(
      sql`update ${customers} set created_at = '2026-01-10T10:00:00Z', updated_at = '2026-02-01T10:00:00Z' where name = 'Águas da Região'`,
    );
    await ctx.db.execute(
      sql`update ${customers} set created_at = '2026-01-12T10:00:00Z', updated_at = '2026-01-12T10:00:00Z' where name = 'Carlos Mondlane'`,
    );
    await ctx.db.execute(
      sql`update ${customers} set created_at = '2026-01-13T10:00:00Z', updated_at = '2026-04-01T08:00:00Z' where name = 'Delta Construções'`,
    );
  });
  afterAll(() => ctx.close());

  it('orders by created_at desc then id desc by default', async () => {
    expect(names(await list(''))).toEqual([
      'Delta Construções',
      'Carlos Mondlane',
      'Águas da Região',
      'Beatriz Nhantumbo',
    ]);
  });

  it('sorts ascending when sort is given, descending on request, id breaking ties', async () => {
    expect(names(await list('?sort=created_at'))).toEqual([
      'Beatriz Nhantumbo',
      'Águas da Região',
      'Carlos Mondlane',
      'Delta Construções',
    ]);
    expect(names(await list('?sort=updated_at&order=desc'))).toEqual([
      'Delta Construções',
      'Beatriz Nhantumbo',
      'Águas da Região',
      'Carlos Mondlane',
    ]);
    expect(names(await list('?sort=name'))).toHaveLength(4);
    expect(names(await list('?order=asc'))).toEqual([
      'Beatriz Nhantumbo',
      'Águas da Região',
      'Carlos Mondlane',
      'Delta Construções',
    ]);
  });

  it('filters by type, search and updated_since (inclusive, date or timestamp)', async () => {
    expect(names(await list('?type=company&sort=created_at'))).toEqual([
      'Águas da Região',
      'Delta Construções',
    ]);
    expect(names(await list('?search=AGUAS'))).toEqual(['Águas da Região']);
    expect(names(await list('?search=400999'))).toEqual(['Águas da Região']);
    expect(names(await list('?search=111%202222'))).toEqual(['Beatriz Nhantumbo']);
    expect(names(await list('?search=exemplo.co&sort=name'))).toEqual([
      'Beatriz Nhantumbo',
      'Carlos Mondlane',
    ]);
    expect(names(await list('?search=%25'))).toEqual([]);
    expect(names(await list('?updated_since=2026-03-01T12:00:00%2B02:00&sort=updated_at'))).toEqual([
      'Beatriz Nhantumbo',
      'Delta Construções',
    ]);
    // A bare date is midnight in Maputo (UTC+2): 2026-04-01T08:00Z is 10:00 there.
    expect(names(await list('?updated_since=2026-04-01'))).toEqual(['Delta Construções']);
  });

  it('paginates with totals, caps per_page at 100 and answers past the end with no data', async () => {
    const first = await list('?per_page=3&sort=created_at');
    expect(first.json().pagination).toEqual({
      total: 4,
      count: 3,
      per_page: 3,
      current_page: 1,
      last_page: 2,
    });
    const second = await list('?per_page=3&page=2&sort=created_at');
    expect(names(second)).toEqual(['Delta Construções']);
    expect(second.json().pagination).toEqual({
      total: 4,
      count: 1,
      per_page: 3,
      current_page: 2,
      last_page: 2,
    });
    expect((await list('?per_page=1000')).json().pagination.per_page).toBe(100);
    const past = await list('?page=9');
    expect(past.json()).toEqual({
      data: [],
      pagination: { total: 4, count: 0, per_page: 25, current_page: 9, last_page: 1 },
    });
  });

  it('refuses bad and unknown parameters with invalid_query_parameter and a useful hint (decisions.md: "Unknown query parameters give 422 invalid_query_parameter")', async () => {
    const cases: [string, string][] = [
      ['?sort=email', 'name, created_at, updated_at'],
      ['?order=up', 'asc, desc'],
      ['?type=person', 'individual, company'],
      ['?updated_since=yesterday', 'ISO 8601'],
      ['?updated_since=2026-02-30', 'ISO 8601'],
      ['?page=0', 'inteiro'],
      ['?page=abc', 'inteiro'],
      ['?per_page=1.5', 'inteiro'],
    ];
    for (const [query, hint] of cases) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().error.code).toBe('invalid_query_parameter');
      expect(res.json().error.hint, query).toContain(hint);
    }
    const unknown = await list('?color=blue');
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.message).toContain('"color"');
    expect(unknown.json().error.hint).toBe(
      'Parâmetros deste pedido: page, per_page, sort, order, search, type, updated_since.',
    );
  });
});
