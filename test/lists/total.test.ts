// Totals from the counters the writes keep (drizzle/0010_list_counts.sql, src/lists/total.ts)
// and searches in the stored folded text: on the first request of every list (nothing remembered)
// and after every kind of write that changes which rows a list holds, on two instances, each
// total equals count(*) of the rows the filter selects, counted here from the tables by the
// contract's meaning of the filter; writes racing on two instances against counts lose nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { queryRows, sql } from '../../src/db/client.js';
import { createGlobalCustomer } from '../../src/operations/global-customers.js';
import { cancelInvoice, issueInvoice, recordMovement, recordReceipt } from '../../src/operations/invoices.js';
import {
  api,
  asOperator,
  createTenant,
  newIdempotencyKey,
  type SecondInstance,
  startSecondInstance,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { createDraft } from '../helpers/invoices.js';
import { expectCountersExact } from '../helpers/list-counts.js';

type Resource = 'customers' | 'products' | 'invoices' | 'payments';

/** A list request and the condition on the resource's visible rows that defines its total. */
interface ListCase {
  resource: Resource;
  query: string;
  where: string;
}

const FOLD = (column: string) =>
  `translate(lower(${column}), 'áàâãäåéèêëíìîïóòôõöúùûüçñýÿ', 'aaaaaaeeeeiiiiooooouuuucnyy')`;
const searched = (columns: string[], term: string) =>
  `(${columns.map((column) => `coalesce(${FOLD(column)} like '%' || ${FOLD(`'${term}'`)} || '%', false)`).join(' or ')})`;
/** `updated_since` as the API reads it: a date is midnight in Maputo (TZ_NAME of the tests). */
const since = (value: string) =>
  value.includes('T')
    ? `updated_at >= '${value}'::timestamptz`
    : `updated_at >= ('${value}'::timestamp at time zone 'Africa/Maputo')`;

/** What each resource's rows are for a company, as the contract says who sees what. */
function visible(resource: Resource, companyId: number): string {
  switch (resource) {
    case 'customers':
      return `(company_id = ${companyId} or company_id is null)`;
    case 'payments':
      return `company_id = ${companyId} and kind = 'receipt' and invoice_id is not null`;
    default:
      return `company_id = ${companyId}`;
  }
}

// Changes at both sides of a midnight in Maputo (UTC+2) and of a UTC midnight (the counters' day).
const INSTANTS = {
  beforeMaputoMidnight: '2026-03-01T21:30:00Z',
  afterMaputoMidnight: '2026-03-01T22:30:00Z',
  afterUtcMidnight: '2026-03-02T00:15:00Z',
  later: '2026-03-05T12:00:00Z',
};
const SINCE = ['2026-03-01', '2026-03-02', '2026-03-01T22:30:00Z', '2026-03-02T02:15:00+02:00', '2026-03-06'];
/** Every edge: the extremes, and a millisecond on each side of the changes. */
const EVERY_SINCE = [
  ...SINCE,
  '2000-01-01',
  '2026-03-01T22:00:00Z',
  '2026-03-01T22:30:00.001Z',
  '2026-03-02T00:15:00.001Z',
  '9999-12-31',
];

function listCases(ids: { customer: number; invoice: number }, recent: string, every: boolean): ListCase[] {
  const cases: ListCase[] = [];
  const add = (resource: Resource, query: Record<string, string>, where: string) =>
    cases.push({ resource, query: new URLSearchParams(query).toString(), where });
  const withSince = (resource: Resource, extra: Record<string, string>, where: string) => {
    for (const value of [...(every ? EVERY_SINCE : SINCE), recent]) {
      add(resource, { ...extra, updated_since: value }, `${where} and ${since(value)}`);
    }
  };

  add('customers', {}, 'true');
  for (const type of ['individual', 'company']) add('customers', { type }, `type = '${type}'`);
  withSince('customers', {}, 'true');
  withSince('customers', { type: 'company' }, `type = 'company'`);
  for (const term of [
    'nhantumbo',
    'AGUAS',
    'exemplo.co',
    '84 111',
    '400999',
    'Consumidor',
    'Beira\nRua',
    'x',
  ]) {
    add(
      'customers',
      { search: term },
      searched(['name', 'email', 'nuit', 'phone'], term.replaceAll("'", "''")),
    );
  }
  add(
    'customers',
    { search: 'a', type: 'company' },
    `${searched(['name', 'email', 'nuit', 'phone'], 'a')} and type = 'company'`,
  );
  // Counted in the table, within the union of own and global customers, read through the filter.
  add(
    'customers',
    { search: 'a', updated_since: '2026-03-02' },
    `${searched(['name', 'email', 'nuit', 'phone'], 'a')} and ${since('2026-03-02')}`,
  );

  add('products', {}, 'true');
  for (const type of ['GOODS', 'SERVICES', 'RAW', 'KIT']) add('products', { type }, `type = '${type}'`);
  for (const sale of ['true', 'false']) add('products', { is_for_sale: sale }, `is_for_sale = ${sale}`);
  add('products', { type: 'SERVICES', is_for_sale: 'false' }, `type = 'SERVICES' and not is_for_sale`);
  withSince('products', {}, 'true');
  withSince('products', { type: 'GOODS', is_for_sale: 'true' }, `type = 'GOODS' and is_for_sale`);
  for (const term of ['farinha', 'SRV-', 'fm-10']) {
    add('products', { search: term }, searched(['name', 'product_code', 'sku'], term));
  }
  add(
    'products',
    { search: 'farinha', type: 'GOODS', is_for_sale: 'true', updated_since: '2026-03-02' },
    `${searched(['name', 'product_code', 'sku'], 'farinha')} and type = 'GOODS' and is_for_sale and ${since('2026-03-02')}`,
  );

  add('invoices', {}, 'true');
  for (const status of ['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled']) {
    add('invoices', { status }, `status = '${status}'`);
    add(
      'invoices',
      { status, date_from: '2026-03-01' },
      `status = '${status}' and invoice_date >= '2026-03-01'`,
    );
  }
  add('invoices', { date_from: '2026-03-01' }, `invoice_date >= '2026-03-01'`);
  add('invoices', { date_to: '2026-03-01' }, `invoice_date <= '2026-03-01'`);
  add(
    'invoices',
    { date_from: '2026-02-28', date_to: '2026-03-02' },
    `invoice_date between '2026-02-28' and '2026-03-02'`,
  );
  withSince('invoices', {}, 'true');
  withSince('invoices', { status: 'unpaid' }, `status = 'unpaid'`);
  add('invoices', { customer_id: String(ids.customer) }, `customer_id = ${ids.customer}`);
  add(
    'invoices',
    { customer_id: String(ids.customer), status: 'unpaid', date_to: '2026-03-01' },
    `customer_id = ${ids.customer} and status = 'unpaid' and invoice_date <= '2026-03-01'`,
  );
  add(
    'invoices',
    { date_from: '2026-03-01', updated_since: '2026-03-02' },
    `invoice_date >= '2026-03-01' and ${since('2026-03-02')}`,
  );

  add('payments', {}, 'true');
  add('payments', { date_from: '2026-03-04' }, `payment_date >= '2026-03-04'`);
  add('payments', { date_to: '2026-03-04' }, `payment_date <= '2026-03-04'`);
  add(
    'payments',
    { date_from: '2026-03-01', date_to: '2026-03-31' },
    `payment_date between '2026-03-01' and '2026-03-31'`,
  );
  add('payments', { invoice_id: String(ids.invoice) }, `invoice_id = ${ids.invoice}`);
  add(
    'payments',
    { invoice_id: String(ids.invoice), date_to: '2026-03-04' },
    `invoice_id = ${ids.invoice} and payment_date <= '2026-03-04'`,
  );
  return cases;
}

describe('list totals from the counters kept by the writes', () => {
  let ctx: TestContext;
  let second: App;
  let secondInstance: SecondInstance | undefined;
  let tenant: Tenant;
  let other: Tenant;
  const ids = { customer: 0, invoice: 0, goods: 0, service: 0 };
  const drafts: number[] = [];

  async function post(app: App, who: Tenant, path: string, body: unknown): Promise<number> {
    const res = await api(app, 'POST', path, {
      key: who.key,
      idempotencyKey: newIdempotencyKey('counts'),
      body,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.id;
  }

  async function put(app: App, who: Tenant, path: string, body: unknown): Promise<void> {
    const res = await api(app, 'PUT', path, {
      key: who.key,
      idempotencyKey: newIdempotencyKey('counts'),
      body,
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  const draft = (app: App, who: Tenant, customer: number, product: number, invoiceDate: string) =>
    createDraft(app, who, {
      customer_id: customer,
      invoice_date: invoiceDate,
      items: [{ product_id: product, quantity: 2, price: 100 }],
    }).then((invoice) => invoice.id);

  async function total(app: App, who: Tenant, resource: Resource, query: string): Promise<number> {
    const res = await api(app, 'GET', `/${resource}?per_page=1${query ? `&${query}` : ''}`, { key: who.key });
    expect(res.statusCode, `${resource}?${query}: ${res.body}`).toBe(200);
    return res.json().pagination.total;
  }

  async function counted(who: Tenant, listCase: ListCase): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      ctx.db,
      sql.raw(
        `select count(*)::int as n from ${listCase.resource} where ${visible(listCase.resource, who.companyId)} and (${listCase.where})`,
      ),
    );
    return row!.n;
  }

  /** The newest change of the company's invoices, to the millisecond: an incremental sync. */
  async function recentInstant(who: Tenant): Promise<string> {
    const [row] = await queryRows<{ at: string }>(
      ctx.db,
      sql`select to_char(max(updated_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
        from invoices where company_id = ${who.companyId}`,
    );
    return row!.at;
  }

  /**
   * Every case on the first instance as a first request (its remembered totals forgotten) and
   * on the second as it comes (remembered, or not, at the current data version): count(*) each.
   * `every`: `updated_since` at every edge too.
   */
  async function expectTotalsExact(who: Tenant = tenant, every = false): Promise<void> {
    const mismatches: string[] = [];
    for (const listCase of listCases(ids, await recentInstant(who), every)) {
      const expected = await counted(who, listCase);
      ctx.app.listMemory.totals.clear();
      const first = await total(ctx.app, who, listCase.resource, listCase.query);
      const onSecond = await total(second, who, listCase.resource, listCase.query);
      if (first !== expected || onSecond !== expected) {
        mismatches.push(`${listCase.resource}?${listCase.query}: ${first}/${onSecond}, count(*) ${expected}`);
      }
    }
    expect(mismatches).toEqual([]);
  }

  beforeAll(async () => {
    ctx = await startTestApp();
    secondInstance = await startSecondInstance(ctx);
    second = secondInstance.app;
    await second.ready();
    tenant = await createTenant(ctx.db, { name: 'Contagens, Lda' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa, Lda' });

    const customer = (body: Record<string, unknown>) => post(ctx.app, tenant, '/customers', body);
    ids.customer = await customer({
      name: 'Beatriz Nhantumbo',
      email: 'beatriz@exemplo.co.mz',
      phone: '+258 84 111 2222',
    });
    const aguas = await customer({
      name: 'Águas da Região',
      type: 'company',
      nuit: '400999888',
      address: 'Beira',
    });
    await customer({ name: 'Carlos Mondlane', email: 'carlos@exemplo.co.mz' });
    await customer({ name: 'Delta Construções', type: 'company' });
    await createGlobalCustomer(ctx.db, { name: 'Consumidor Final', nuit: '999999999' });
    const product = (body: Record<string, unknown>) =>
      post(ctx.app, tenant, '/products', { inventory: 'NON_INVENTORY', price: 100, ...body });
    ids.goods = await product({ name: 'Farinha de milho 10 kg', type: 'GOODS', sku: 'FM-10' });
    ids.service = await product({ name: 'Transporte', type: 'SERVICES' });
    await product({ name: 'Consultoria interna', type: 'SERVICES', is_for_sale: false });
    await product({ name: 'Farinha crua', type: 'RAW' });

    for (const [i, date] of [
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
      '2026-03-15',
      '2026-04-01',
    ].entries()) {
      drafts.push(await draft(ctx.app, tenant, i % 2 ? aguas : ids.customer, ids.goods, date));
    }
    const operator = asOperator(ctx.db);
    for (const id of drafts.slice(0, 4)) await issueInvoice(operator, id);
    ids.invoice = drafts[0]!;
    await recordReceipt(operator, { invoiceId: drafts[0]!, amount: '100.00', date: '2026-03-03' });
    await recordReceipt(operator, { invoiceId: drafts[0]!, amount: '50.00', date: '2026-03-05' });
    await recordReceipt(operator, { invoiceId: drafts[1]!, amount: '200.00', date: '2026-03-04' });
    await cancelInvoice(operator, drafts[2]!);
    await recordMovement(operator, {
      companyId: tenant.companyId,
      kind: 'salary',
      amount: '500.00',
      date: '2026-03-04',
    });

    // Changes at known instants (as the main application writes them), around both midnights.
    const instants = Object.values(INSTANTS);
    for (const table of ['customers', 'products', 'invoices']) {
      await ctx.db.execute(
        sql.raw(`update ${table} set updated_at = (array['${instants.join("','")}']::timestamptz[])[1 + id % 4]
          where company_id = ${tenant.companyId}`),
      );
    }
    // Another company's rows, which no total of this one may count.
    const theirs = await post(ctx.app, other, '/customers', { name: 'Cliente de outra empresa' });
    const theirProduct = await post(ctx.app, other, '/products', {
      name: 'Farinha deles',
      type: 'GOODS',
      inventory: 'NON_INVENTORY',
      price: 10,
    });
    await draft(ctx.app, other, theirs, theirProduct, '2026-03-01');
  });

  afterAll(async () => {
    await secondInstance?.close();
    await ctx?.close();
  });

  it('counts on the first request exactly what count(*) counts, for every filter, their combinations and each company', async () => {
    await expectTotalsExact(tenant, true);
    await expectTotalsExact(other, true);
    await expectCountersExact(ctx.db);
  });

  // Ten rounds of every list case over HTTP beside count(*): about 20 s alone on PGlite, several
  // times that on a loaded machine.
  it('stays exact after every kind of write that moves a row in or out of a list', {
    timeout: 240_000,
  }, async () => {
    const operator = asOperator(ctx.db);
    // API creations and updates on either instance: type, name (search), is_for_sale, updated_at.
    const created = await post(second, tenant, '/customers', { name: 'Eduardo Macuácua', type: 'company' });
    await put(ctx.app, tenant, `/customers/${created}`, { type: 'individual', name: 'Eduarda Nhantumbo' });
    await put(second, tenant, `/customers/${ids.customer}`, { phone: '+258 82 000 0000' });
    // A global customer counts for every company.
    await createGlobalCustomer(ctx.db, { name: 'Cliente Diverso', type: 'company' });
    await expectTotalsExact();
    const product = await post(second, tenant, '/products', {
      name: 'Serviço novo',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: 5,
    });
    await put(ctx.app, tenant, `/products/${product}`, {
      name: 'Farinha nova',
      type: 'GOODS',
      inventory: 'NON_INVENTORY',
      price: 5,
      is_for_sale: false,
    });
    await expectTotalsExact();
    // Drafts through the API; issue, receipts and cancel by operator commands.
    const fresh = await draft(second, tenant, ids.customer, ids.service, '2026-03-02');
    await expectTotalsExact();
    await issueInvoice(operator, fresh);
    await recordReceipt(operator, { invoiceId: fresh, amount: '100.00', date: '2026-03-06' });
    await expectTotalsExact();
    await recordReceipt(operator, { invoiceId: fresh, amount: '100.00' });
    await cancelInvoice(operator, drafts[4]!);
    await expectTotalsExact();
    // What the main application may do besides: move a date or a change time across a midnight,
    // update many rows in one statement, clear a payment date, delete rows.
    await ctx.db.execute(sql`update invoices set invoice_date = '2026-02-28' where id = ${drafts[5]!}`);
    await ctx.db.execute(
      sql`update customers set updated_at = ${INSTANTS.afterUtcMidnight}::timestamptz where id = ${ids.customer}`,
    );
    await ctx.db.execute(
      sql`update invoices set updated_at = updated_at + interval '1 hour' where company_id = ${tenant.companyId}`,
    );
    await expectTotalsExact();
    await ctx.db.execute(sql`update payments set payment_date = null where invoice_id = ${ids.invoice}`);
    await ctx.db.execute(sql`update payments set kind = 'supplier_payment', invoice_id = null
      where id = (select max(id) from payments where invoice_id = ${drafts[1]!})`);
    await expectTotalsExact();
    await ctx.db.execute(sql`delete from customers where id = ${created}`);
    await ctx.db.execute(sql`delete from invoice_items where invoice_id = ${drafts[5]!}`);
    await ctx.db.execute(sql`delete from invoices where id = ${drafts[5]!}`);
    await expectTotalsExact(tenant, true);
    await expectTotalsExact(other);
    await expectCountersExact(ctx.db);
  });

  it('loses no update when writes on two instances race each other and the counts', async () => {
    const before = await total(ctx.app, tenant, 'customers', '');
    const seen: number[] = [];
    let writing = true;
    // Counts taken all along the race, each a first request: never outside what was written.
    const reader = (async () => {
      while (writing) {
        // PGlite answers without I/O: let the writes' other steps (timers, immediates) run.
        await new Promise((resolve) => setImmediate(resolve));
        ctx.app.listMemory.totals.clear();
        seen.push(await total(ctx.app, tenant, 'customers', 'updated_since=2000-01-01'));
        seen.push(await total(second, tenant, 'customers', ''));
      }
    })();
    const operator = asOperator(ctx.db);
    const writes = Array.from({ length: 12 }, async (_, i) => {
      const app = i % 2 ? second : ctx.app;
      // Same company, same day, same status: every one of these moves the same counter rows.
      await post(app, tenant, '/customers', { name: `Corrida ${i}`, type: i % 3 ? 'individual' : 'company' });
      const invoice = await draft(app, tenant, ids.customer, ids.service, '2026-03-20');
      if (i % 2) await issueInvoice(operator, invoice);
      if (i % 4 === 1) await cancelInvoice(operator, invoice);
      await put(app, tenant, `/products/${ids.goods}`, {
        name: 'Farinha de milho 10 kg',
        type: i % 2 ? 'GOODS' : 'RAW',
        inventory: 'NON_INVENTORY',
        price: 100 + i,
      });
    });
    try {
      await Promise.all(writes);
    } finally {
      writing = false;
      await reader;
    }
    const after = await total(ctx.app, tenant, 'customers', '');
    expect(after).toBe(before + 12);
    expect(seen.length).toBeGreaterThan(0);
    for (const value of seen) {
      expect(value).toBeGreaterThanOrEqual(before);
      expect(value).toBeLessThanOrEqual(after);
    }
    await expectTotalsExact();
    await expectCountersExact(ctx.db);
  });
});
