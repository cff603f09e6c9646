import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { productCodeSequences, products } from '../../src/db/schema.js';
import { listPendingPosSync } from '../../src/operations/pos.js';
import { createProduct, updateProduct } from '../../src/products/service.js';
import { api, companyContext, createTenant, startTestApp, type TestContext } from '../helpers/context.js';
import { baseBody, newKey, type ProductJson, postProduct, putProduct } from '../helpers/products.js';

/** Operator output: TZ_NAME (the tests run on its default, Africa/Maputo) with its offset. */
const IN_TZ_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+02:00$/;

describe('products: POS synchronisation and product codes', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await startTestApp();
  });
  afterAll(() => ctx.close());

  it('marks every API write for the POS, oldest change first, per company', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Loja POS' });
    const other = await createTenant(ctx.db, { name: 'Outra' });
    // Written by the application, not through the API: never pending.
    await ctx.db.insert(products).values({
      companyId: tenant.companyId,
      name: 'Da aplicação',
      productCode: 'APP-1',
      type: 'GOODS',
      inventory: 'INVENTORY',
    });
    expect(await listPendingPosSync(companyContext(ctx.db, tenant.companyId))).toEqual([]);

    const a = await postProduct(ctx.app, tenant, baseBody({ name: 'Pão', price: 12.5, pos_price: 13 }));
    const b = await postProduct(ctx.app, tenant, baseBody({ name: 'Leite', price: 60 }));
    await postProduct(ctx.app, other, baseBody({ name: 'Alheio' }));
    const first = await listPendingPosSync(companyContext(ctx.db, tenant.companyId));
    expect(first.map((p) => p.id)).toEqual([a.id, b.id]);
    expect(first[0]).toEqual({
      id: a.id,
      product_code: a.product_code,
      name: 'Pão',
      price: '12.50',
      pos_price: '13.00',
      changed_at: expect.stringMatching(IN_TZ_NAME),
    });

    // The POS took everything; a PUT puts the product back in the queue, now the latest change.
    await ctx.db
      .update(products)
      .set({ posSyncPending: false })
      .where(eq(products.companyId, tenant.companyId));
    expect(await listPendingPosSync(companyContext(ctx.db, tenant.companyId))).toEqual([]);
    const changed = await putProduct(ctx.app, tenant, a.id, baseBody({ name: 'Pão de forma', price: 15 }));
    const [row] = await ctx.db.select().from(products).where(eq(products.id, a.id));
    expect(row?.posSyncPending).toBe(true);
    expect(row?.posChangedAt?.getTime()).toBe(row?.updatedAt.getTime());
    expect(row?.posChangedAt?.getTime()).toBe(new Date(changed.updated_at).getTime());
    await putProduct(ctx.app, tenant, b.id, baseBody({ name: 'Leite UHT', price: 65 }));
    const second = await listPendingPosSync(companyContext(ctx.db, tenant.companyId));
    expect(second.map((p) => [p.name, p.price])).toEqual([
      ['Pão de forma', '15.00'],
      ['Leite UHT', '65.00'],
    ]);
    expect(new Date(second[0]!.changed_at!).getTime()).toBe(new Date(changed.updated_at).getTime());
    expect((await listPendingPosSync(companyContext(ctx.db, other.companyId))).map((p) => p.name)).toEqual([
      'Alheio',
    ]);
    // A refused write marks nothing.
    await ctx.db
      .update(products)
      .set({ posSyncPending: false })
      .where(eq(products.companyId, tenant.companyId));
    const refused = await api(ctx.app, 'PUT', `/products/${a.id}`, {
      key: tenant.key,
      idempotencyKey: newKey(),
      body: baseBody({ price: 1.005 }),
    });
    expect(refused.statusCode).toBe(422);
    expect(await listPendingPosSync(companyContext(ctx.db, tenant.companyId))).toEqual([]);
  });

  it('never duplicates a code under 20 concurrent creates: codes are consecutive', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Loja concorrida' });
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(ctx.app, 'POST', '/products', {
          key: tenant.key,
          idempotencyKey: newKey(),
          body: baseBody({ name: `Produto ${i}` }),
        }),
      ),
    );
    const elapsed = performance.now() - started;
    for (const res of responses) expect(res.statusCode, res.body).toBe(201);
    const codes = responses.map((res) => (res.json().data as ProductJson).product_code).sort();
    expect(codes).toEqual(Array.from({ length: 20 }, (_, i) => `BEN-${String(i + 1).padStart(6, '0')}`));
    const [sequence] = await ctx.db
      .select()
      .from(productCodeSequences)
      .where(eq(productCodeSequences.companyId, tenant.companyId));
    expect(sequence).toMatchObject({ type: 'GOODS', lastValue: 20 });
    console.info(`20 concurrent POST /products (${process.env.TEST_STORAGE}): ${elapsed.toFixed(0)} ms`);

    // Mixed types at once: each type keeps its own consecutive sequence.
    const mixed = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api(ctx.app, 'POST', '/products', {
          key: tenant.key,
          idempotencyKey: newKey(),
          body: baseBody({ type: i % 2 === 0 ? 'SERVICES' : 'GOODS', inventory: 'NON_INVENTORY' }),
        }),
      ),
    );
    const mixedCodes = mixed.map((res) => res.json().data.product_code as string).sort();
    expect(mixedCodes).toEqual([
      ...Array.from({ length: 6 }, (_, i) => `BEN-${String(21 + i).padStart(6, '0')}`),
      ...Array.from({ length: 6 }, (_, i) => `SRV-${String(1 + i).padStart(6, '0')}`),
    ]);
  });

  it('never reuses a code: not after a product is gone, and skips codes taken outside the API', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Loja códigos' });
    const first = await postProduct(ctx.app, tenant, baseBody({ type: 'KIT' }));
    expect(first.product_code).toBe('KIT-000001');
    // The application removes it: its number is still spent.
    await ctx.db.delete(products).where(eq(products.id, first.id));
    // The application created a product with the next code itself.
    await ctx.db.insert(products).values({
      companyId: tenant.companyId,
      name: 'Kit manual',
      productCode: 'KIT-000002',
      type: 'KIT',
      inventory: 'NON_INVENTORY',
    });
    const next = await postProduct(ctx.app, tenant, baseBody({ type: 'KIT' }));
    expect(next.product_code).toBe('KIT-000003');
    // A refused create spends nothing visible; a replay creates nothing.
    const key = newKey();
    const raw = JSON.stringify(baseBody({ type: 'KIT', name: 'Replay' }));
    const once = await api(ctx.app, 'POST', '/products', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    const twice = await api(ctx.app, 'POST', '/products', {
      key: tenant.key,
      idempotencyKey: key,
      rawBody: raw,
    });
    expect(once.json().data.product_code).toBe('KIT-000004');
    expect(twice.body).toBe(once.body);
    expect((await postProduct(ctx.app, tenant, baseBody({ type: 'KIT' }))).product_code).toBe('KIT-000005');
  });

  it('createProduct and updateProduct work directly on the database and inside a transaction', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Demo' });
    const as = (db: Database, companyId = tenant.companyId) =>
      companyContext(db, companyId, ctx.config.timeZone);
    const direct = await createProduct(as(ctx.db), {
      name: 'Demo',
      type: 'ASSETS',
      inventory: 'NON_INVENTORY',
      price: 10,
    });
    expect(direct).toMatchObject({
      id: expect.any(Number),
      product_code: 'ACT-000001',
      price: '10.00',
      stock: null,
    });
    const inTx = await ctx.db.transaction((tx) =>
      createProduct(as(tx), {
        name: 'Em transacção',
        type: 'ASSETS',
        inventory: 'INVENTORY',
        price: 1,
      }),
    );
    expect(inTx).toMatchObject({ product_code: 'ACT-000002', stock: 0 });
    // A caller's transaction that rolls back takes its product and its number with it.
    await expect(
      ctx.db.transaction(async (tx) => {
        await createProduct(as(tx), {
          name: 'Desfeito',
          type: 'ASSETS',
          inventory: 'INVENTORY',
          price: 1,
        });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const after = await createProduct(as(ctx.db), {
      name: 'Depois',
      type: 'ASSETS',
      inventory: 'INVENTORY',
      price: 1,
    });
    expect(after.product_code).toBe('ACT-000003');
    const updated = await updateProduct(as(ctx.db), direct.id, {
      name: 'Demo 2',
      type: 'ASSETS',
      inventory: 'INVENTORY',
      price: 20.1,
    });
    expect(updated).toMatchObject({ name: 'Demo 2', price: '20.10', stock: 0 });
    const pending = await listPendingPosSync(companyContext(ctx.db, tenant.companyId));
    expect(pending.map((product) => product.id)).toContain(direct.id);
    const other = await createTenant(ctx.db, { name: 'Outra' });
    expect(
      await updateProduct(as(ctx.db, other.companyId), direct.id, {
        ...baseBody(),
        type: 'GOODS',
        inventory: 'INVENTORY',
      }),
    ).toBeNull();
    await expect(
      createProduct(as(ctx.db), {
        name: 'X',
        type: 'GOODS',
        inventory: 'INVENTORY',
        price: 0.001,
        tax_id: 424242,
      }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      errors: { price: ['deve ter no máximo 2 casas decimais'], tax_id: ['Imposto inexistente.'] },
    });
  });
});
