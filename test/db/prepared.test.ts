// The one way to prepare a statement (src/db/prepared.ts) rests on a private Drizzle API, so it is
// pinned: this file fails on any other Drizzle version, and shows the statements still work on both
// drivers, on a handle and inside a transaction, named (prepared) on PostgreSQL.
import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { DRIZZLE_VERSION, fixedStatement, fixedTableRead, runFixed } from '../../src/db/prepared.js';
import { companies, customers } from '../../src/db/schema.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

const json = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

describe(`prepared statements (${testStorage()})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it('Drizzle is exactly the version whose private prepareQuery src/db/prepared.ts was checked against', () => {
    expect(json('../../node_modules/drizzle-orm/package.json').version).toBe(DRIZZLE_VERSION);
    expect(json('../../package.json').dependencies['drizzle-orm']).toBe(DRIZZLE_VERSION);
  });

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
});
