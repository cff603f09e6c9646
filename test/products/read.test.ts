import { Decimal } from 'decimal.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productCategories, productCategoryLinks, products } from '../../src/db/schema.js';
import { createTax } from '../../src/operations/taxes.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';
import {
  errorWithoutRequestId,
  PRODUCT_KEYS,
  type ProductJson,
  postProduct,
  TIMESTAMP,
} from '../helpers/products.js';

const SORTS = ['name', 'price', 'stock', 'created_at', 'updated_at'] as const;
type Sort = (typeof SORTS)[number];

/** Ascending comparison as PostgreSQL does it: nulls last, then the id. */
function compareAsc(sort: Sort) {
  const key = (p: ProductJson): string | number | Decimal | null =>
    sort === 'price' ? (p.price === null ? null : new Decimal(p.price)) : p[sort];
  return (a: ProductJson, b: ProductJson): number => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x instanceof Decimal && y instanceof Decimal) {
      if (!x.eq(y)) return x.lt(y) ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
    return a.id - b.id;
  };
}

describe('products: reads', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let all: ProductJson[];
  let appProductId: number;
  const ids: Record<string, number> = {};

  const list = async (query: string, key = tenant.key) => {
    const res = await api(ctx.app, 'GET', `/products${query}`, { key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { data: ProductJson[]; pagination: Record<string, number> };
  };
  const names = async (query: string) => (await list(query)).data.map((p) => p.name);

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db, { name: 'Loja Maputo' });
    other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    const iva = await createTax(ctx.db, { companyId: tenant.companyId, name: 'IVA', rate: '16' });

    const fixtures: [string, Record<string, unknown>, { stock?: string; day: number; minute?: number }][] = [
      [
        'arroz',
        {
          name: 'Arroz 25kg',
          type: 'GOODS',
          inventory: 'INVENTORY',
          price: 1250,
          sku: 'ARZ-25',
          tax_id: iva.id,
        },
        { stock: '5', day: 1 },
      ],
      [
        'banana',
        { name: 'Banana', type: 'GOODS', inventory: 'NON_INVENTORY', price: 10, is_for_sale: false },
        { day: 2 },
      ],
      [
        'bananaService',
        { name: 'Banana', type: 'SERVICES', inventory: 'NON_INVENTORY', price: 10 },
        { day: 2 },
      ],
      [
        'caderno',
        { name: 'Caderno', type: 'RAW', inventory: 'INVENTORY', price: 85.5 },
        { stock: '5', day: 3 },
      ],
      [
        'esferografica',
        { name: 'Esferográfica azul', type: 'GOODS', inventory: 'INVENTORY', price: 10, sku: 'ESF' },
        { stock: '12.5', day: 4 },
      ],
      [
        'detergente',
        { name: 'Detergente', type: 'KIT', inventory: 'INVENTORY', price: 200, is_for_sale: false },
        { stock: '0', day: 5, minute: 30 },
      ],
    ];
    for (const [label, body, { stock, day, minute }] of fixtures) {
      const created = await postProduct(ctx.app, tenant, body);
      ids[label] = created.id;
      // Fixed times (two products share one) so every order can be checked exactly.
      const at = new Date(`2026-01-0${day}T10:${String(minute ?? 0).padStart(2, '0')}:00.000+02:00`);
      await ctx.db
        .update(products)
        .set({ createdAt: at, updatedAt: at, ...(stock !== undefined ? { stock } : {}) })
        .where(eq(products.id, created.id));
    }
    // A product the application created, with internal fields and categories, and no price.
    const [appProduct] = await ctx.db
      .insert(products)
      .values({
        companyId: tenant.companyId,
        name: 'Feijão manteiga',
        productCode: 'APP-0001',
        type: 'GOODS',
        inventory: 'INVENTORY',
        price: null,
        costPrice: '900.00',
        incomeAccountId: 4101,
        expenseAccountId: 6101,
        syncId: 'pos-sync-77',
        synced: true,
        stock: '3.2500',
        taxId: iva.id,
        isForPurchase: false,
        createdAt: new Date('2026-01-06T10:00:00.000+02:00'),
        updatedAt: new Date('2026-01-03T10:00:00.000+02:00'),
      })
      .returning();
    appProductId = appProduct!.id;
    const categories = await ctx.db
      .insert(productCategories)
      .values([
        { companyId: tenant.companyId, name: 'Mercearia' },
        { companyId: tenant.companyId, name: 'Alimentos' },
      ])
      .returning();
    await ctx.db
      .insert(productCategoryLinks)
      .values(categories.map((category) => ({ productId: appProductId, categoryId: category.id })));

    await postProduct(ctx.app, other, {
      name: 'Banana alheia',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: 10,
    });
    all = (await list('?per_page=100')).data;
  });
  afterAll(() => ctx.close());

  it('returns exactly the fields of 2.2, never internal ones', async () => {
    const res = await api(ctx.app, 'GET', `/products/${appProductId}`, { key: tenant.key });
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(Object.keys(data).sort()).toEqual(PRODUCT_KEYS);
    expect(data).toEqual({
      id: appProductId,
      name: 'Feijão manteiga',
      product_code: 'APP-0001',
      sku: '',
      description: null,
      type: 'GOODS',
      unity: '',
      price: null,
      pos_price: null,
      vat_included: false,
      tax_rate: 16,
      stock: 3.25,
      reorder_level: null,
      tracks_inventory: true,
      is_for_sale: true,
      categories: ['Alimentos', 'Mercearia'],
      created_at: '2026-01-06T10:00:00.000+02:00',
      updated_at: '2026-01-03T10:00:00.000+02:00',
    });
    for (const secret of [
      '900',
      'cost',
      'account',
      '4101',
      '6101',
      'sync',
      'purchase',
      'company',
      'pos_sync',
    ]) {
      expect(res.body).not.toContain(secret);
    }
    for (const product of all) {
      expect(Object.keys(product).sort()).toEqual(PRODUCT_KEYS);
      expect(product.created_at).toMatch(TIMESTAMP);
      expect(product.updated_at).toMatch(TIMESTAMP);
    }
    expect(all.find((p) => p.id === appProductId)).toEqual(data);
  });

  it('lists only the company products, newest first by default', async () => {
    const body = await list('');
    expect(body.pagination).toEqual({ total: 7, count: 7, per_page: 25, current_page: 1, last_page: 1 });
    expect(body.data.map((p) => p.name)).not.toContain('Banana alheia');
    const expected = [...all].sort(compareAsc('created_at')).reverse();
    expect(body.data.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    // The two Banana products share created_at: the id breaks the tie in the same direction.
    const bananas = body.data.filter((p) => p.name === 'Banana').map((p) => p.id);
    expect(bananas).toEqual([ids.bananaService, ids.banana]);
    const otherList = await list('', other.key);
    expect(otherList.data.map((p) => p.name)).toEqual(['Banana alheia']);
  });

  it('sorts by every field in both orders with the id as tie-breaker', async () => {
    for (const sort of SORTS) {
      const asc = [...all].sort(compareAsc(sort)).map((p) => p.id);
      expect(
        (await list(`?sort=${sort}`)).data.map((p) => p.id),
        `${sort}`,
      ).toEqual(asc);
      expect(
        (await list(`?sort=${sort}&order=asc`)).data.map((p) => p.id),
        `${sort} asc`,
      ).toEqual(asc);
      expect(
        (await list(`?sort=${sort}&order=desc`)).data.map((p) => p.id),
        `${sort} desc`,
      ).toEqual([...asc].reverse());
    }
    // Ties really are there: equal names, prices, stocks and timestamps.
    expect(await names('?sort=price&per_page=3')).toEqual(['Banana', 'Banana', 'Esferográfica azul']);
    expect((await list('?sort=stock&per_page=3')).data.map((p) => p.stock)).toEqual([0, 3.25, 5]);
    expect((await list('?sort=stock&order=desc&per_page=3')).data.map((p) => p.stock)).toEqual([
      null,
      null,
      12.5,
    ]);
    expect((await list('?order=asc')).data.map((p) => p.id)).toEqual(
      [...all].sort(compareAsc('created_at')).map((p) => p.id),
    );
  });

  it('paginates without overlap, caps per_page at 100 and answers [] past the last page', async () => {
    const seen: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const body = await list(`?per_page=2&page=${page}`);
      expect(body.pagination).toEqual({
        total: 7,
        count: page === 4 ? 1 : 2,
        per_page: 2,
        current_page: page,
        last_page: 4,
      });
      seen.push(...body.data.map((p) => p.id));
    }
    expect(seen).toEqual(all.map((p) => p.id));
    expect((await list('?per_page=500')).pagination).toMatchObject({ per_page: 100, count: 7, last_page: 1 });
    const past = await list('?page=9&per_page=2');
    expect(past.data).toEqual([]);
    expect(past.pagination).toEqual({ total: 7, count: 0, per_page: 2, current_page: 9, last_page: 4 });
  });

  it('filters by search (name, code, sku; case and accents ignored), type, is_for_sale, updated_since', async () => {
    expect(await names('?search=GRAFICA')).toEqual(['Esferográfica azul']);
    expect(await names('?search=feijao')).toEqual(['Feijão manteiga']);
    expect(await names('?search=arz-25')).toEqual(['Arroz 25kg']);
    expect(await names('?search=srv-000001')).toEqual(['Banana']);
    expect(await names('?search=app-0001')).toEqual(['Feijão manteiga']);
    expect(await names('?search=%25')).toEqual([]);
    expect(await names('?search=_')).toEqual([]);
    expect(await names('?search=alheia')).toEqual([]);
    expect(await names('?type=SERVICES')).toEqual(['Banana']);
    expect(await names('?type=KIT')).toEqual(['Detergente']);
    expect(await names('?is_for_sale=false&sort=name')).toEqual(['Banana', 'Detergente']);
    expect((await list('?is_for_sale=true')).pagination.total).toBe(5);
    expect(await names('?type=GOODS&is_for_sale=true&sort=name')).toEqual([
      'Arroz 25kg',
      'Esferográfica azul',
      'Feijão manteiga',
    ]);
    // updated_since is inclusive, a date is read in the service's time zone.
    expect(await names('?updated_since=2026-01-04&sort=name')).toEqual(['Detergente', 'Esferográfica azul']);
    expect(await names('?updated_since=2026-01-05T10:30:00%2B02:00')).toEqual(['Detergente']);
    expect(await names('?updated_since=2026-01-05T08:30:00Z')).toEqual(['Detergente']);
    expect(await names('?updated_since=2026-01-05T08:30:00.001Z')).toEqual([]);
    expect((await list('?updated_since=2026-01-03&sort=name')).data.map((p) => p.name)).toEqual([
      'Caderno',
      'Detergente',
      'Esferográfica azul',
      'Feijão manteiga',
    ]);
  });

  it('refuses bad query parameters with 422 invalid_query_parameter and the valid values', async () => {
    const cases: [string, string[]][] = [
      ['?type=FOOD', ['GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT']],
      ['?type=goods', ['GOODS']],
      ['?is_for_sale=yes', ['true', 'false']],
      ['?is_for_sale=1', ['true', 'false']],
      ['?is_for_sale=', ['true', 'false']],
      ['?sort=cost_price', ['name', 'price', 'stock', 'created_at', 'updated_at']],
      ['?order=up', ['asc', 'desc']],
      ['?page=0', []],
      ['?page=-1', []],
      ['?per_page=abc', []],
      ['?per_page=0', []],
      ['?updated_since=yesterday', ['ISO 8601']],
      ['?updated_since=2026-02-30', ['ISO 8601']],
    ];
    for (const [query, hints] of cases) {
      const res = await api(ctx.app, 'GET', `/products${query}`, { key: tenant.key });
      expect(res.statusCode, query).toBe(422);
      expect(res.json().error.code, query).toBe('invalid_query_parameter');
      for (const hint of hints) expect(res.json().error.hint, query).toContain(hint);
    }
  });

  it('answers a foreign, missing or malformed id with the identical 404', async () => {
    const foreign = (await list('', other.key)).data[0]!.id;
    const responses = await Promise.all(
      [foreign, 999999, 'abc', '0', '-1', '1.5', '99999999999', `${ids.arroz}x`].map((id) =>
        api(ctx.app, 'GET', `/products/${id}`, { key: tenant.key }),
      ),
    );
    const bodies = responses.map((res) => {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
      return JSON.stringify(errorWithoutRequestId(res.body));
    });
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual({
      code: 'resource_not_found',
      message: 'O recurso pedido não existe.',
      hint: expect.any(String),
      doc_url: 'https://docs.test/partner-api/v1/errors#resource_not_found',
    });
    // The owner still sees it.
    expect((await api(ctx.app, 'GET', `/products/${foreign}`, { key: other.key })).statusCode).toBe(200);
  });

  it('needs products:read', async () => {
    const customersOnly = await createTenant(ctx.db, { scopes: ['customers:read', 'products:write'] });
    for (const path of ['/products', `/products/${ids.arroz}`]) {
      const res = await api(ctx.app, 'GET', path, { key: customersOnly.key });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('insufficient_scope');
      expect(res.json().error.hint).toContain('products:read');
    }
    const testKey = await createTenant(ctx.db, { mode: 'test', scopes: ['products:read'] });
    expect((await api(ctx.app, 'GET', '/products', { key: testKey.key })).statusCode).toBe(200);
  });
});
