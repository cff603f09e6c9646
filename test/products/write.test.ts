import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { products } from '../../src/db/schema.js';
import { createTax } from '../../src/operations/taxes.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import {
  baseBody,
  getProduct,
  newKey,
  PRODUCT_KEYS,
  postProduct,
  putProduct,
  TIMESTAMP,
} from '../helpers/products.js';

const NOT_ACCEPTED = [
  'product_code',
  'cost_price',
  'stock',
  'photo',
  'tenant_id',
  'reference_product_id',
  'project_id',
  'copy_to_branches',
  'sync_id',
  'client_id',
  'synced',
  'last_modified',
  'income_account_id',
  'expense_account_id',
  'account_id',
  'company_id',
  'pos_sync_pending',
  'pos_changed_at',
  'tracks_inventory',
  'tax_rate',
  'categories',
  'id',
];

describe('products: writes', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let ownTax: number;
  let globalTax: number;
  let foreignTax: number;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Loja Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    ownTax = (await createTax(ctx.db, { companyId: tenant.companyId, name: 'IVA', rate: '16' })).id;
    globalTax = (await createTax(ctx.db, { companyId: null, name: 'IVA reduzido', rate: '5.5' })).id;
    foreignTax = (await createTax(ctx.db, { companyId: other.companyId, name: 'IVA alheio', rate: '17' })).id;
  });
  afterAll(() => ctx.close());

  const post = (body: unknown, key = tenant.key, idempotencyKey = newKey()) =>
    api(ctx.app, 'POST', '/products', { key, idempotencyKey, body });
  const put = (id: number | string, body: unknown, key = tenant.key) =>
    api(ctx.app, 'PUT', `/products/${id}`, { key, idempotencyKey: newKey(), body });

  it('creates a product with every field of 2.2, exact money and a later GET equal to the 201 body', async () => {
    const res = await post({
      name: 'Óleo Fula 5L',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 0.1,
      pos_price: 1234567.89,
      description: 'Óleo vegetal',
      sku: 'FULA-5L',
      unity: 'un',
      vat_included: true,
      reorder_level: 10,
      is_for_sale: false,
      is_for_purchase: false,
      tax_id: ownTax,
    });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(Object.keys(data).sort()).toEqual(PRODUCT_KEYS);
    expect(data).toEqual({
      id: expect.any(Number),
      name: 'Óleo Fula 5L',
      product_code: 'BEN-000001',
      sku: 'FULA-5L',
      description: 'Óleo vegetal',
      type: 'GOODS',
      unity: 'un',
      price: '0.10',
      pos_price: '1234567.89',
      vat_included: true,
      tax_rate: 16,
      stock: 0,
      reorder_level: 10,
      tracks_inventory: true,
      is_for_sale: false,
      categories: [],
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(res.body).toBe(JSON.stringify({ data: await getProduct(ctx.app, tenant, data.id) }));
    const read = await api(ctx.app, 'GET', `/products/${data.id}`, { key: tenant.key });
    expect(read.body).toBe(res.body);
    // Stored exactly, as text in numeric columns, with the purchase flag the API never shows.
    const [row] = await ctx.db.select().from(products).where(eq(products.id, data.id));
    expect(row).toMatchObject({
      price: '0.10',
      posPrice: '1234567.89',
      isForPurchase: false,
      costPrice: null,
    });
  });

  it('applies defaults for a minimal NON_INVENTORY product: no stock, empty texts, no tax', async () => {
    const data = await postProduct(ctx.app, tenant, {
      name: 'Consultoria',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: 1500,
    });
    expect(data).toMatchObject({
      product_code: 'SRV-000001',
      sku: '',
      unity: '',
      description: null,
      price: '1500.00',
      pos_price: null,
      vat_included: false,
      tax_rate: null,
      stock: null,
      reorder_level: null,
      tracks_inventory: false,
      is_for_sale: true,
      categories: [],
    });
    const [row] = await ctx.db.select().from(products).where(eq(products.id, data.id));
    expect(row).toMatchObject({ isForPurchase: true, stock: null, taxId: null });
  });

  it('gives each type its own readable code sequence', async () => {
    const codes: string[] = [];
    for (const type of ['RAW', 'ASSETS', 'KIT', 'RAW'] as const) {
      codes.push((await postProduct(ctx.app, tenant, baseBody({ type }))).product_code);
    }
    expect(codes).toEqual(['MP-000001', 'ACT-000001', 'KIT-000001', 'MP-000002']);
    // Sequences are per company: another company starts again at 1.
    expect((await postProduct(ctx.app, other, baseBody({ type: 'RAW' }))).product_code).toBe('MP-000001');
  });

  it('accepts a global tax and refuses a foreign tax exactly like a nonexistent one', async () => {
    const global = await postProduct(ctx.app, tenant, baseBody({ tax_id: globalTax }));
    expect(global.tax_rate).toBe(5.5);
    const foreign = await post(baseBody({ tax_id: foreignTax }));
    const missing = await post(baseBody({ tax_id: 999999 }));
    const huge = await post(baseBody({ tax_id: 99999999999 }));
    const negative = await post(baseBody({ tax_id: -1 }));
    for (const res of [foreign, missing, huge, negative]) {
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
      expect(res.json().error.errors).toEqual({ tax_id: ['Imposto inexistente.'] });
    }
    const { request_id: _a, ...foreignError } = foreign.json().error;
    const { request_id: _b, ...missingError } = missing.json().error;
    expect(foreignError).toEqual(missingError);
  });

  it('rejects every field that is not accepted, naming it', async () => {
    for (const field of NOT_ACCEPTED) {
      const res = await post(baseBody({ [field]: field === 'synced' ? true : 1 }));
      expect(res.statusCode, field).toBe(422);
      expect(res.json().error.code).toBe('validation_failed');
      expect(res.json().error.errors, field).toEqual({ [field]: ['campo não permitido'] });
    }
    const all = await post(baseBody(Object.fromEntries(NOT_ACCEPTED.map((field) => [field, 'x']))));
    expect(Object.keys(all.json().error.errors).sort()).toEqual([...NOT_ACCEPTED].sort());
  });

  it('checks types, limits and requirements with the exact error keys', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [baseBody({ price: '12' }), ['price']],
      [baseBody({ price: -0.01 }), ['price']],
      [baseBody({ price: null }), ['price']],
      [baseBody({ pos_price: -1 }), ['pos_price']],
      [baseBody({ pos_price: '5' }), ['pos_price']],
      [baseBody({ name: 'x'.repeat(256) }), ['name']],
      [baseBody({ name: '' }), ['name']],
      [baseBody({ description: 'x'.repeat(2001) }), ['description']],
      [baseBody({ sku: 'x'.repeat(101) }), ['sku']],
      [baseBody({ unity: 'x'.repeat(51) }), ['unity']],
      [baseBody({ reorder_level: -1 }), ['reorder_level']],
      [baseBody({ reorder_level: 1.5 }), ['reorder_level']],
      [baseBody({ reorder_level: '3' }), ['reorder_level']],
      [baseBody({ tax_id: '1' }), ['tax_id']],
      [baseBody({ vat_included: 'true' }), ['vat_included']],
      [baseBody({ is_for_sale: 1 }), ['is_for_sale']],
      [baseBody({ type: 'FOOD' }), ['type']],
      [baseBody({ inventory: 'YES' }), ['inventory']],
      [{}, ['inventory', 'name', 'price', 'type']],
      [{ name: 5, type: 'GOODS', inventory: 'INVENTORY', price: 1, cost_price: 3 }, ['cost_price', 'name']],
    ];
    for (const [body, keys] of cases) {
      const res = await post(body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(Object.keys(res.json().error.errors).sort(), JSON.stringify(body).slice(0, 80)).toEqual(keys);
    }
    const boundaries = await post(
      baseBody({
        name: 'x'.repeat(255),
        description: 'x'.repeat(2000),
        sku: 'x'.repeat(100),
        unity: 'x'.repeat(50),
        price: 0,
        pos_price: 0,
        reorder_level: 0,
      }),
    );
    expect(boundaries.statusCode).toBe(201);
    expect(boundaries.json().data).toMatchObject({ price: '0.00', pos_price: '0.00', reorder_level: 0 });
  });

  it('refuses more than two decimal places instead of rounding, collecting every own-rule problem', async () => {
    const three = await post(baseBody({ price: 12.345 }));
    expect(three.statusCode).toBe(422);
    expect(three.json().error.errors).toEqual({ price: ['deve ter no máximo 2 casas decimais'] });
    const tiny = await post(baseBody({ price: 1e-7 }));
    expect(tiny.json().error.errors).toEqual({ price: ['deve ter no máximo 2 casas decimais'] });
    const all = await post(baseBody({ price: 1.001, pos_price: 2.999, tax_id: foreignTax }));
    expect(all.json().error.errors).toEqual({
      price: ['deve ter no máximo 2 casas decimais'],
      pos_price: ['deve ter no máximo 2 casas decimais'],
      tax_id: ['Imposto inexistente.'],
    });
    const huge = await post(baseBody({ price: 1e16 }));
    expect(huge.statusCode).toBe(422);
    expect(huge.json().error.errors).toEqual({ price: ['deve ser menor que 10000000000000000'] });
    const largest = await postProduct(ctx.app, tenant, baseBody({ price: 999999999999.99 }));
    expect(largest.price).toBe('999999999999.99');
  });

  it('stores nothing on a 422, so the same key works once the body is fixed; replays the same body', async () => {
    const before = (await ctx.db.select().from(products)).length;
    const key = newKey();
    const bad = await post(baseBody({ name: 'Açúcar', price: 1.234 }), tenant.key, key);
    expect(bad.statusCode).toBe(422);
    expect((await ctx.db.select().from(products)).length).toBe(before);
    const raw = JSON.stringify(baseBody({ name: 'Açúcar', price: 1.23 }));
    const first = await api(ctx.app, 'POST', '/products', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    const again = await api(ctx.app, 'POST', '/products', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.body).toBe(first.body);
    expect((await ctx.db.select().from(products)).length).toBe(before + 1);
  });

  it('PUT replaces required fields, keeps omitted optional ones and clears explicit nulls', async () => {
    const created = await postProduct(ctx.app, tenant, {
      name: 'Caderno A4',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 85.5,
      pos_price: 90,
      description: 'Capa dura',
      sku: 'CAD-A4',
      unity: 'un',
      vat_included: true,
      reorder_level: 5,
      is_for_sale: false,
      is_for_purchase: false,
      tax_id: ownTax,
    });
    const kept = await putProduct(ctx.app, tenant, created.id, {
      name: 'Caderno A4 80 folhas',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 99.99,
    });
    expect(kept).toEqual({
      ...created,
      name: 'Caderno A4 80 folhas',
      price: '99.99',
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(kept.updated_at >= created.updated_at).toBe(true);
    expect(await getProduct(ctx.app, tenant, created.id)).toEqual(kept);

    const cleared = await putProduct(ctx.app, tenant, created.id, {
      name: 'Caderno',
      type: 'RAW',
      inventory: 'INVENTORY',
      price: 99.99,
      pos_price: null,
      description: null,
      sku: null,
      unity: null,
      vat_included: null,
      reorder_level: null,
      is_for_sale: null,
      is_for_purchase: null,
      tax_id: null,
    });
    expect(cleared).toEqual({
      ...kept,
      name: 'Caderno',
      type: 'RAW',
      // The code is the product's identity: a type change keeps it.
      product_code: created.product_code,
      pos_price: null,
      description: null,
      sku: '',
      unity: '',
      vat_included: false,
      reorder_level: null,
      is_for_sale: true,
      tax_rate: null,
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    const [row] = await ctx.db.select().from(products).where(eq(products.id, created.id));
    expect(row).toMatchObject({ taxId: null, isForPurchase: true, sku: null, posPrice: null });

    const taxed = await putProduct(ctx.app, tenant, created.id, baseBody({ tax_id: globalTax, sku: 'N' }));
    expect(taxed).toMatchObject({ tax_rate: 5.5, sku: 'N', name: 'Arroz 25kg', type: 'GOODS' });
  });

  it('PUT keeps stock consistent with inventory and never touches internal fields', async () => {
    const created = await postProduct(ctx.app, tenant, baseBody({ name: 'Cimento' }));
    // The application moved stock and set internal fields.
    await ctx.db
      .update(products)
      .set({ stock: '7.5000', costPrice: '900.00', incomeAccountId: 71, syncId: 'pos-1' })
      .where(eq(products.id, created.id));
    const still = await putProduct(ctx.app, tenant, created.id, baseBody({ name: 'Cimento 50kg' }));
    expect(still).toMatchObject({ stock: 7.5, tracks_inventory: true });
    const none = await putProduct(ctx.app, tenant, created.id, baseBody({ inventory: 'NON_INVENTORY' }));
    expect(none).toMatchObject({ stock: null, tracks_inventory: false });
    const back = await putProduct(ctx.app, tenant, created.id, baseBody({ inventory: 'INVENTORY' }));
    expect(back).toMatchObject({ stock: 0, tracks_inventory: true });
    const [row] = await ctx.db.select().from(products).where(eq(products.id, created.id));
    expect(row).toMatchObject({ costPrice: '900.00', incomeAccountId: 71, syncId: 'pos-1' });
  });

  it('PUT validates like POST: required fields, own rules, unknown fields', async () => {
    const created = await postProduct(ctx.app, tenant, baseBody({ name: 'Sabão' }));
    const missing = await put(created.id, { description: 'só isto' });
    expect(missing.statusCode).toBe(422);
    expect(Object.keys(missing.json().error.errors).sort()).toEqual(['inventory', 'name', 'price', 'type']);
    const own = await put(created.id, baseBody({ price: 3.333, tax_id: foreignTax }));
    expect(own.json().error.errors).toEqual({
      price: ['deve ter no máximo 2 casas decimais'],
      tax_id: ['Imposto inexistente.'],
    });
    const unknown = await put(created.id, baseBody({ stock: 100, product_code: 'X' }));
    expect(Object.keys(unknown.json().error.errors).sort()).toEqual(['product_code', 'stock']);
    expect(await getProduct(ctx.app, tenant, created.id)).toEqual(created);
  });

  it('PUT on a foreign, missing or malformed id is 404 before the body, and changes nothing', async () => {
    const mine = await postProduct(ctx.app, tenant, baseBody({ name: 'Farinha' }));
    const foreign = await put(mine.id, baseBody({ name: 'Hack' }), other.key);
    const missing = await put(999999, baseBody({ name: 'Hack' }), other.key);
    const malformed = await put('abc', baseBody({ name: 'Hack' }), other.key);
    const badBody = await api(ctx.app, 'PUT', `/products/${mine.id}`, {
      key: other.key,
      idempotencyKey: newKey(),
      rawBody: '{oops',
    });
    const unknownField = await put(mine.id, { tenant_id: 1 }, other.key);
    const bodies = [foreign, missing, malformed, badBody, unknownField].map((res) => {
      expect(res.statusCode).toBe(404);
      const { request_id, ...rest } = res.json().error;
      expect(request_id).toBe(res.headers['x-request-id']);
      return JSON.stringify(rest);
    });
    expect(new Set(bodies).size).toBe(1);
    expect(await getProduct(ctx.app, tenant, mine.id)).toEqual(mine);
  });

  it('refuses writes without the scope, with a test key, or without an idempotency key', async () => {
    const readOnly = await createTenant(ctx.db, { scopes: ['products:read'] });
    const noScope = await post(baseBody(), readOnly.key);
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json().error.code).toBe('insufficient_scope');
    expect(noScope.json().error.hint).toContain('products:write');
    const created = await postProduct(ctx.app, tenant, baseBody());
    const noScopePut = await api(ctx.app, 'PUT', `/products/${created.id}`, {
      key: readOnly.key,
      idempotencyKey: newKey(),
      body: baseBody(),
    });
    expect(noScopePut.json().error.code).toBe('insufficient_scope');

    const testKey = await createTenant(ctx.db, { mode: 'test' });
    for (const method of ['POST', 'PUT'] as const) {
      const res = await api(ctx.app, method, method === 'POST' ? '/products' : `/products/${created.id}`, {
        key: testKey.key,
        idempotencyKey: newKey(),
        body: baseBody(),
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('test_mode_read_only');
    }
    expect((await api(ctx.app, 'GET', '/products', { key: testKey.key })).statusCode).toBe(200);

    const noKey = await api(ctx.app, 'POST', '/products', { key: tenant.key, body: baseBody() });
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json().error.code).toBe('idempotency_key_required');
    const notJson = await api(ctx.app, 'POST', '/products', {
      key: tenant.key,
      idempotencyKey: newKey(),
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(notJson.statusCode).toBe(422);
    expect(notJson.json().error.errors).toHaveProperty('body');
  });

  it('has no DELETE', async () => {
    const created = await postProduct(ctx.app, tenant, baseBody());
    const res = await api(ctx.app, 'DELETE', `/products/${created.id}`, { key: tenant.key });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Not Found');
  });
});
