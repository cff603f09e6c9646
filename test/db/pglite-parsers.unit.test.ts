// The embedded driver's parsers (src/db/pglite-parsers.ts): drizzle's per-query "leave it as text"
// parsers are the PGlite instance's own, so values read through drizzle are exactly what they
// were, in and out of transactions.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type DatabaseHandle, openDatabase, PGLITE_OPTIONS, queryRows, sql } from '../../src/db/client.js';
import { DRIZZLE_TEXT_PARSERS } from '../../src/db/pglite-parsers.js';

describe('PGlite with the parsers of drizzle on the instance', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openDatabase({ kind: 'pglite', dataDir: null });
  });
  afterAll(() => handle.close());

  it('reads every value exactly as PGlite does when drizzle passes its parsers on each query', async () => {
    const text = `select '2026-11-22'::date as day, '2026-11-22 09:30:00.125+02'::timestamptz as at,
      '2026-11-22 09:30:00'::timestamp as local_at, '1 day 02:00'::interval as span,
      12345678901234567.89::numeric as big, array['2026-01-01'::date] as days,
      array[1.10::numeric] as amounts, array[now()] as moments, 7::int as plain, true as yes`;
    const reference = new PGlite(PGLITE_OPTIONS);
    onTestFinished(() => reference.close());
    const expected = await reference.query(text, [], { rowMode: 'object', parsers: DRIZZLE_TEXT_PARSERS });
    const [row] = await queryRows<Record<string, unknown>>(handle.db, sql.raw(text));
    expect({ ...row, moments: null }).toEqual({ ...(expected.rows[0] as object), moments: null });
    expect(row).toMatchObject({
      day: '2026-11-22',
      at: '2026-11-22 07:30:00.125+00',
      big: '12345678901234567.89',
    });
  });

  it('keeps the same parsers in a transaction, and a failed one leaves nothing behind', async () => {
    await handle.db.execute(sql`create table parser_probe (id int primary key, at timestamptz not null)`);
    const inside = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`insert into parser_probe values (1, '2026-11-22 10:00:00+02')`);
      return queryRows<{ at: unknown }>(tx, sql`select at from parser_probe`);
    });
    expect(inside).toEqual([{ at: '2026-11-22 08:00:00+00' }]);
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into parser_probe values (2, now())`);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await queryRows(handle.db, sql`select id from parser_probe order by id`)).toEqual([{ id: 1 }]);
  });
});
