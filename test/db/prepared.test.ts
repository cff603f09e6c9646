// The one way to prepare a statement (src/db/prepared.ts), through the drivers' public calls: the
// statements work on both drivers, on a handle and inside a transaction (and a savepoint), named
// (prepared) on PostgreSQL, their table rows mapped exactly as drizzle's own select maps them.
import { DrizzleQueryError, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, runInTransaction } from '../../src/db/client.js';
import { describeDatabaseError } from '../../src/db/errors.js';
import { fixedStatement, fixedTableRead, runFixed } from '../../src/db/prepared.js';
import { companies, customers } from '../../src/db/schema.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

describe(`prepared statements (${testStorage()})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it('a SQL statement gives raw rows, on the handle and inside a transaction', async () => {
    const { db } = database.handle;
    const byName = fixedStatement(
      sql`select id, name, created_at from ${companies} where name = ${sql.placeholder('name')}::text`,
    );
    await db.insert(companies).values({ name: 'Preparada, Lda' });
    const [row] = await runFixed<{ id: number; name: string; created_at: string }>(db, byName, {
      name: 'Preparada, Lda',
    });
    expect(row).toMatchObject({ name: 'Preparada, Lda' });
    // Timestamps are the database's text on both drivers (drizzle asks for them so).
    expect(typeof row?.created_at).toBe('string');

    let seenInside = 0;
    const undone = db.transaction(async (tx) => {
      await tx.insert(companies).values({ name: 'Só na transacção' });
      seenInside = (await runFixed(tx, byName, { name: 'Só na transacção' })).length;
      if (database.handle.kind === 'postgres') {
        // Named, so PostgreSQL parsed it once on this connection.
        const prepared = await queryRows(
          tx,
          sql`select 1 from pg_prepared_statements where name = ${byName.name}`,
        );
        expect(prepared).toHaveLength(1);
      }
      throw new Error('undo');
    });
    await expect(undone).rejects.toThrow('undo');
    expect(seenInside).toBe(1);
    expect(await runFixed(db, byName, { name: 'Só na transacção' })).toEqual([]);
  });

  it('a table read maps whole rows exactly like drizzle', async () => {
    const { db } = database.handle;
    const [created] = await db
      .insert(companies)
      .values({ name: 'Mapeada, Lda', nuit: '400111222' })
      .returning();
    const byId = fixedTableRead(companies, eq(companies.id, sql.placeholder('id')));
    const [row] = await runFixed(db, byId, { id: created?.id });
    expect(row).toEqual(created);
    expect(row?.createdAt).toBeInstanceOf(Date);
    expect(await db.transaction((tx) => runFixed(tx, byId, { id: created?.id }))).toEqual([created]);
  });

  it('a customer read (every column, empty ones, a global customer) equals drizzle’s own select', async () => {
    const { db } = database.handle;
    const [company] = await db.insert(companies).values({ name: 'Clientes Lidos, Lda' }).returning();
    const rows = await db
      .insert(customers)
      .values([
        {
          companyId: company!.id,
          name: 'Cliente Completo',
          type: 'company',
          email: 'completo@exemplo.co.mz',
          phone: '+258 84 000 0000',
          contactNumber: '21 000 000',
          nuit: '400999888',
          address: 'Av. 25 de Setembro, Maputo',
        },
        { companyId: company!.id, name: 'Cliente Vazio' },
        { companyId: null, name: 'Consumidor Global' },
      ])
      .returning();
    const byId = fixedTableRead(customers, eq(customers.id, sql.placeholder('id')));
    for (const created of rows) {
      const [drizzles] = await db.select().from(customers).where(eq(customers.id, created.id));
      expect(await runFixed(db, byId, { id: created.id })).toEqual([drizzles]);
      expect(await runFixed(db, byId, { id: created.id })).toEqual([drizzles]);
      expect(await db.transaction((tx) => runFixed(tx, byId, { id: created.id }))).toEqual([drizzles]);
    }
  });

  it('a failure is drizzle’s error with the driver’s as its cause, classified as before', async () => {
    const { db } = database.handle;
    const insert = fixedStatement(
      sql`insert into ${companies} (id, name) values (${sql.placeholder('id')}, 'Dupla')`,
    );
    const [first] = await db.insert(companies).values({ name: 'Primeira' }).returning();
    const failure = await runFixed(db, insert, { id: first?.id }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DrizzleQueryError);
    expect((failure as Error).cause).toMatchObject({ code: '23505' });
    expect(describeDatabaseError(failure)).toMatchObject({ kind: 'input', code: '23505' });
  });

  it('a savepoint rolled back inside a transaction keeps the rest of it; a thrown transaction keeps nothing', async () => {
    const { db } = database.handle;
    const byName = fixedStatement(
      sql`select id from ${companies} where name = ${sql.placeholder('name')}::text`,
    );
    await runInTransaction(db, async (tx) => {
      await tx.insert(companies).values({ name: 'Exterior' });
      await expect(
        tx.transaction(async (savepoint) => {
          await savepoint.insert(companies).values({ name: 'Interior' });
          expect(await runFixed(savepoint, byName, { name: 'Interior' })).toHaveLength(1);
          throw new Error('undo the savepoint');
        }),
      ).rejects.toThrow('undo the savepoint');
      await tx.transaction((savepoint) => savepoint.insert(companies).values({ name: 'Interior Guardado' }));
    });
    expect(await runFixed(db, byName, { name: 'Exterior' })).toHaveLength(1);
    expect(await runFixed(db, byName, { name: 'Interior' })).toHaveLength(0);
    expect(await runFixed(db, byName, { name: 'Interior Guardado' })).toHaveLength(1);
  });

  it('repeated on one connection (its row description remembered), the rows, types and failures stay the same', async () => {
    const { db } = database.handle;
    const [created] = await db
      .insert(companies)
      .values({ name: 'Repetida, Lda', nuit: '400333444' })
      .returning();
    const byId = fixedTableRead(companies, eq(companies.id, sql.placeholder('id')));
    const raw = fixedStatement(
      sql`select id, name, created_at, null::text as nothing from ${companies} where id = ${sql.placeholder('id')}`,
    );
    // One transaction: the same connection every time, so the later executions reuse the first's description.
    await runInTransaction(db, async (tx) => {
      for (let round = 0; round < 3; round++) {
        expect(await runFixed(tx, byId, { id: created?.id })).toEqual([created]);
        const [row] = await runFixed<Record<string, unknown>>(tx, raw, { id: created?.id });
        expect(row).toEqual({
          id: created?.id,
          name: 'Repetida, Lda',
          created_at: expect.any(String),
          nothing: null,
        });
        expect(await runFixed(tx, byId, { id: -1 })).toEqual([]);
      }
    });
    // On the pool too, however its connections are handed out, and a bad value still fails as before.
    for (let round = 0; round < 6; round++) {
      expect(await runFixed(db, byId, { id: created?.id })).toEqual([created]);
    }
    const failure = await runFixed(db, byId, { id: 'not a number' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DrizzleQueryError);
    expect(await runFixed(db, byId, { id: created?.id })).toEqual([created]);
  });
});
