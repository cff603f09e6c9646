// The embedded PGlite's read cache (src/db/read-cache.ts): a remembered single read answers
// exactly like the plain path, and a change made through any app sharing the database (or straight
// through drizzle) is seen by the next read, also while writes race with reads. On PostgreSQL
// there is no cache: two instances over one database always read it.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { findCustomer } from '../../src/customers/repository.js';
import { readOnly, runInTransaction } from '../../src/db/client.js';
import { fixedStatement, runFixed } from '../../src/db/prepared.js';
import { readCacheOf } from '../../src/db/read-cache.js';
import { customers } from '../../src/db/schema.js';
import { checkConformance } from '../helpers/conformance.js';
import {
  api,
  companyContext,
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';

let ctx: TestContext;
/** A second app over the same database handle: another instance of the service. */
let other: App;
let tenant: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  ctx = await startTestApp();
  other = checkConformance(
    await buildApp({ config: ctx.config, database: ctx.database.handle, logger: false }),
  );
  await other.ready();
  tenant = await createTenant(ctx.db, { name: 'Armazém do Índico, Lda' });
  stranger = await createTenant(ctx.db, { name: 'Outra Empresa, Lda' });
});

afterAll(async () => {
  await other?.close();
  await ctx?.close();
});

async function createCustomer(app: App, who: Tenant, name: string): Promise<number> {
  const res = await api(app, 'POST', '/customers', {
    key: who.key,
    idempotencyKey: newIdempotencyKey('read-cache'),
    body: { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@exemplo.co.mz` },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

async function rename(app: App, id: number, name: string): Promise<void> {
  const res = await api(app, 'PUT', `/customers/${id}`, {
    key: tenant.key,
    idempotencyKey: newIdempotencyKey('read-cache'),
    body: { name },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function nameOf(app: App, id: number): Promise<string> {
  const res = await api(app, 'GET', `/customers/${id}`, { key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.name;
}

describe(`single reads remembered on PGlite only (${testStorage()})`, () => {
  it(
    testStorage() === 'pglite' ? 'the embedded database keeps a read cache' : 'PostgreSQL keeps none',
    () => {
      expect(readCacheOf(ctx.db) !== undefined).toBe(testStorage() === 'pglite');
    },
  );

  it('a remembered read answers exactly like the plain path: own, global, another company’s, missing', async () => {
    const own = await createCustomer(ctx.app, tenant, 'Cliente Próprio');
    const theirs = await createCustomer(ctx.app, stranger, 'Cliente Alheio');
    const [global] = await ctx.db
      .insert(customers)
      .values({ companyId: null, name: 'Consumidor Final', type: 'individual' })
      .returning({ id: customers.id });
    const context = companyContext(ctx.db, tenant.companyId);
    for (const id of [own, global!.id, theirs, 999_999]) {
      // Inside a transaction nothing is remembered: the plain path, read on its own.
      const plain = await ctx.db.transaction((tx) => findCustomer({ ...context, db: tx }, id));
      const first = await findCustomer(context, id);
      const again = await findCustomer(context, id);
      expect(first, `customer ${id}`).toEqual(plain);
      expect(again, `customer ${id}`).toEqual(plain);
      const answers = await Promise.all(
        [ctx.app, other, ctx.app].map((app) => api(app, 'GET', `/customers/${id}`, { key: tenant.key })),
      );
      for (const answer of answers) {
        expect(answer.statusCode).toBe(plain ? 200 : 404);
        if (plain) expect(answer.json()).toEqual({ data: plain });
      }
    }
    expect(await findCustomer(context, theirs)).toBeNull();
  });

  it('a change through one app is read by the other at once (and the change is seen by the one that made it)', async () => {
    const id = await createCustomer(ctx.app, tenant, 'Loja Primeira');
    expect(await nameOf(ctx.app, id)).toBe('Loja Primeira');
    expect(await nameOf(other, id)).toBe('Loja Primeira');
    await rename(other, id, 'Loja Segunda');
    expect(await nameOf(ctx.app, id)).toBe('Loja Segunda');
    expect(await nameOf(other, id)).toBe('Loja Segunda');
    // A change straight through the database handle (an operator's operation) too.
    await ctx.db.update(customers).set({ name: 'Loja Terceira' }).where(eq(customers.id, id));
    expect(await nameOf(ctx.app, id)).toBe('Loja Terceira');
    // A global customer changed: every company sees it at once.
    const [global] = await ctx.db
      .insert(customers)
      .values({ companyId: null, name: 'Global Antigo', type: 'individual' })
      .returning({ id: customers.id });
    expect(await nameOf(other, global!.id)).toBe('Global Antigo');
    await ctx.db.update(customers).set({ name: 'Global Novo' }).where(eq(customers.id, global!.id));
    expect(await nameOf(other, global!.id)).toBe('Global Novo');
  });

  it('a rolled-back change is never read, and a read during an open transaction is not remembered from it', async () => {
    const id = await createCustomer(ctx.app, tenant, 'Antes do Rollback');
    expect(await nameOf(ctx.app, id)).toBe('Antes do Rollback');
    await expect(
      ctx.db.transaction(async (tx) => {
        await tx.update(customers).set({ name: 'Nunca Gravado' }).where(eq(customers.id, id));
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await nameOf(other, id)).toBe('Antes do Rollback');
  });

  it('writes to other tables (a new key, a new company) do not make it forget; a customer write does', async () => {
    const cache = readCacheOf(ctx.db);
    if (!cache) return; // PostgreSQL: nothing is remembered
    const id = await createCustomer(ctx.app, tenant, 'Lembrado');
    await nameOf(ctx.app, id);
    const remembered = cache.size;
    expect(remembered).toBeGreaterThan(0);
    await createTenant(ctx.db, { name: 'Empresa Nova, Lda' });
    await nameOf(ctx.app, id);
    expect(cache.size).toBe(remembered);
    await rename(ctx.app, id, 'Esquecido');
    expect(await nameOf(ctx.app, id)).toBe('Esquecido');
    expect(cache.size).toBe(1);
  });

  it('writes racing with reads on two apps: a read that starts after a write answered sees it, no read sees a value not yet written', async () => {
    const id = await createCustomer(ctx.app, tenant, 'Versão 0');
    for (let version = 1; version <= 15; version++) {
      const before = Array.from({ length: 3 }, (_, index) => nameOf(index % 2 ? other : ctx.app, id));
      const write = rename(version % 2 ? other : ctx.app, id, `Versão ${version}`);
      const during = Array.from({ length: 3 }, (_, index) => nameOf(index % 2 ? ctx.app : other, id));
      await write;
      const after = await Promise.all([nameOf(ctx.app, id), nameOf(other, id)]);
      expect(after).toEqual([`Versão ${version}`, `Versão ${version}`]);
      for (const name of await Promise.all([...before, ...during])) {
        expect([`Versão ${version - 1}`, `Versão ${version}`]).toContain(name);
      }
    }
  });

  it('a write through any path makes it forget: raw SQL, a fixed statement, a transaction, a SELECT that calls a writing function', async () => {
    const id = await createCustomer(ctx.app, tenant, 'Caminho 0');
    await ctx.db.execute(sql`create or replace function rename_customer_for_test(customer bigint, name text)
      returns bigint language sql as $$ update customers set name = $2 where id = $1 returning id $$`);
    const renameFixed = fixedStatement(
      sql`update ${customers} set name = ${sql.placeholder('name')}::text where id = ${sql.placeholder('id')}`,
    );
    const writes: [string, () => Promise<unknown>][] = [
      ['raw SQL', () => ctx.db.execute(sql`update customers set name = 'Caminho 1' where id = ${id}`)],
      ['a fixed statement', () => runFixed(ctx.db, renameFixed, { id, name: 'Caminho 2' })],
      [
        'a transaction',
        () =>
          runInTransaction(ctx.db, (tx) =>
            tx.update(customers).set({ name: 'Caminho 3' }).where(eq(customers.id, id)),
          ),
      ],
      [
        'a SELECT calling a writing function',
        () => ctx.db.execute(sql`select rename_customer_for_test(${id}, 'Caminho 4')`),
      ],
    ];
    let expected = 'Caminho 0';
    for (const [path, write] of writes) {
      expect(await nameOf(ctx.app, id), path).toBe(expected);
      expect(await nameOf(ctx.app, id), path).toBe(expected);
      await write();
      expected = `Caminho ${Number(expected.split(' ')[1]) + 1}`;
      expect(await nameOf(ctx.app, id), path).toBe(expected);
      expect(await nameOf(other, id), path).toBe(expected);
    }
    // Reads declared so go around the counter: a list read through readOnly(db) keeps the cache,
    // and so do the lists of the API (src/lists/page.ts) and /ping's total. Seen on an instance
    // that keeps no request log (its batched inserts are writes), once the others' logs are written.
    const cache = readCacheOf(ctx.db);
    if (!cache) return;
    const unlogged = await buildApp({
      config: { ...ctx.config, requestLog: false },
      database: ctx.database.handle,
      logger: false,
    });
    try {
      // The other instances' logs are written now, not by their timers during the measurement;
      // nothing else writes unless asked (their prunes run hourly and every ten minutes).
      for (let attempt = 0; ; attempt++) {
        await ctx.app.requestLog.flush();
        await other.requestLog.flush();
        await nameOf(unlogged, id);
        const before = cache.checks;
        await nameOf(unlogged, id);
        if (cache.checks === before) break;
        expect(attempt, 'something kept writing').toBeLessThan(40);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const remembered = cache.size;
      const checks = cache.checks;
      await readOnly(ctx.db).select().from(customers).where(eq(customers.companyId, tenant.companyId));
      for (const path of [
        '/customers?per_page=5',
        '/customers?search=caminho',
        '/products',
        '/invoices',
        '/payments',
        '/ping',
      ]) {
        const res = await api(unlogged, 'GET', path, { key: tenant.key });
        expect(res.statusCode, res.body).toBe(200);
      }
      await nameOf(unlogged, id);
      expect(cache.size).toBe(remembered);
      expect(cache.checks, 'a declared read made the cache check data_versions again').toBe(checks);
      // ...while an undeclared one counts as a possible write: the next single read checks again.
      await ctx.db.select().from(customers).where(eq(customers.companyId, tenant.companyId));
      await nameOf(unlogged, id);
      expect(cache.checks).toBe(checks + 1);
    } finally {
      await unlogged.close();
    }
    await expect(runInTransaction(readOnly(ctx.db), async () => 1)).rejects.toThrow('readOnly');
  });
});
