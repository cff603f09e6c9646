// Remembered totals and page ends (src/lists/memory.ts, paginate in src/lists/page.ts) and the
// remembered API keys (src/keys/key-cache.ts), with two instances on one database: whatever
// either instance (or an operator command) writes, every total equals count(*) at once, a walk
// never skips or repeats a row, and a revoked key is refused everywhere within a second.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows, sql } from '../../src/db/client.js';
import { revokeApiKey } from '../../src/operations/api-keys.js';
import { setPartnerApi } from '../../src/operations/companies.js';
import { createGlobalCustomer } from '../../src/operations/global-customers.js';
import { issueInvoice } from '../../src/operations/invoices.js';
import {
  api,
  asOperator,
  createTenant,
  type SecondInstance,
  startSecondInstance,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { createCustomer, createDraft, createProduct } from '../helpers/invoices.js';

describe('remembered totals, page ends and keys across two instances', () => {
  let ctx: TestContext;
  let second: App;
  let secondInstance: SecondInstance | undefined;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    ctx = await startTestApp();
    secondInstance = await startSecondInstance(ctx);
    second = secondInstance.app;
    await second.ready();
    tenant = await createTenant(ctx.db, { name: 'Loja Memória, Lda' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa, Lda' });
    for (let i = 0; i < 7; i++) await createCustomer(ctx.app, tenant, `Cliente ${i}`);
    await createCustomer(ctx.app, other, 'Cliente de outra empresa');
  });

  afterAll(async () => {
    await secondInstance?.close();
    await ctx?.close();
  });

  async function visibleCount(companyId: number): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      ctx.db,
      sql`select count(*)::int as n from customers where company_id = ${companyId} or company_id is null`,
    );
    return row?.n ?? -1;
  }

  async function totalOn(app: App, path: string, key = tenant.key): Promise<number> {
    const res = await api(app, 'GET', path, { key });
    expect(res.statusCode).toBe(200);
    return res.json().pagination.total;
  }

  async function expectTotalsExact() {
    const expected = await visibleCount(tenant.companyId);
    for (const app of [ctx.app, second]) {
      expect(await totalOn(app, '/customers?per_page=2')).toBe(expected);
      expect((await api(app, 'GET', '/ping', { key: tenant.key })).json().data.customers_visible).toBe(
        expected,
      );
    }
  }

  it('keeps every total equal to count(*) after writes on either instance and by operator commands', async () => {
    await expectTotalsExact();
    await createCustomer(second, tenant, 'Criado na segunda instância');
    await expectTotalsExact();
    await createCustomer(ctx.app, tenant, 'Criado na primeira instância');
    await expectTotalsExact();
    // A global customer (company 0's counter) changes every company's visible total.
    await createGlobalCustomer(ctx.db, { name: 'Cliente Global' });
    await expectTotalsExact();
    // Another company's write changes nothing here, and its totals stay its own.
    await createCustomer(second, other, 'Mais um da outra');
    await expectTotalsExact();
    expect(await totalOn(ctx.app, '/customers', other.key)).toBe(await visibleCount(other.companyId));
  });

  it('concurrent requests that miss the remembered total share one count, and all get it exact', async () => {
    await createCustomer(second, tenant, 'Antes da rajada');
    const started = vi.spyOn(ctx.app.listMemory.counting, 'set');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api(ctx.app, 'GET', '/ping', { key: tenant.key })),
    );
    const expected = await visibleCount(tenant.companyId);
    for (const res of answers) expect(res.json().data.customers_visible).toBe(expected);
    expect(started.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(started.mock.calls.length).toBeLessThan(8);
    expect(ctx.app.listMemory.counting.size).toBe(0);
    started.mockRestore();
  });

  it('moves a filtered invoice total when an operator issues a draft', async () => {
    const productId = await createProduct(ctx.app, ctx.db, tenant, { name: 'Serviço' });
    const customerId = await createCustomer(ctx.app, tenant, 'Cliente das faturas');
    const drafts = [];
    for (let i = 0; i < 3; i++) {
      drafts.push(
        await createDraft(ctx.app, tenant, {
          customer_id: customerId,
          invoice_date: '2026-11-20',
          items: [{ product_id: productId, quantity: 1, price: 10 }],
        }),
      );
    }
    for (const app of [ctx.app, second]) expect(await totalOn(app, '/invoices?status=draft')).toBe(3);
    await issueInvoice(asOperator(ctx.db), drafts[0]!.id);
    for (const app of [ctx.app, second]) {
      expect(await totalOn(app, '/invoices?status=draft')).toBe(2);
      expect(await totalOn(app, '/invoices?status=unpaid')).toBe(1);
    }
  });

  it('walks every row once, also when a write lands in the middle of the walk', async () => {
    async function page(app: App, n: number) {
      const res = await api(app, 'GET', `/customers?per_page=3&sort=name&page=${n}`, { key: tenant.key });
      expect(res.statusCode).toBe(200);
      return res.json() as {
        data: { id: number }[];
        pagination: { last_page: number; current_page: number };
      };
    }
    const seen: number[] = [];
    let current = await page(ctx.app, 1);
    seen.push(...current.data.map((c) => c.id));
    for (let n = 2; n <= current.pagination.last_page; n++) {
      current = await page(ctx.app, n);
      // The first instance seeks past where page n-1 ended; the second skips by offset: same page.
      expect(current.data).toEqual((await page(second, n)).data);
      seen.push(...current.data.map((c) => c.id));
    }
    expect(ctx.app.listMemory.cursors.size).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(await visibleCount(tenant.companyId));

    // A new customer whose name sorts first shifts every page: the remembered end of page 1 is
    // no longer where page 2 starts, and page 2 is what a fresh instance says it is.
    await page(ctx.app, 1);
    await createCustomer(second, tenant, 'AAA Primeiro');
    expect((await page(ctx.app, 2)).data).toEqual((await page(second, 2)).data);
  });

  // A second at most (the key cache's lifetime; the notification makes it milliseconds), plus a
  // margin for a loaded machine.
  it('refuses a revoked key and a disabled company on the other instance within a second', async () => {
    const key = await createTenant(ctx.db, { name: 'Chave Revogada, Lda' });
    for (const app of [ctx.app, second])
      expect((await api(app, 'GET', '/ping', { key: key.key })).statusCode).toBe(200);
    await revokeApiKey(asOperator(ctx.db), key.apiKey.id);
    await vi.waitFor(
      async () =>
        expect((await api(second, 'GET', '/ping', { key: key.key })).json().error.code).toBe(
          'api_key_revoked',
        ),
      { timeout: 1500, interval: 10 },
    );

    const company = await createTenant(ctx.db, { name: 'Empresa Desligada, Lda' });
    for (const app of [ctx.app, second])
      expect((await api(app, 'GET', '/ping', { key: company.key })).statusCode).toBe(200);
    await setPartnerApi(ctx.db, company.companyId, false);
    await vi.waitFor(
      async () =>
        expect((await api(second, 'GET', '/ping', { key: company.key })).json().error.code).toBe(
          'partner_api_disabled',
        ),
      { timeout: 1500, interval: 10 },
    );
  });
});
