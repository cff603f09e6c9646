// Issue 42, goal 3: public driver calls only. A pooled connection that met a lost server (here a
// read-only one, as a primary that became a standby) is released with that error by the transaction
// that met it, so the pool closes it; no method of a pg object is replaced to find out.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase, queryRows, sql } from '../../src/db/client.js';
import { describeDatabaseError } from '../../src/db/errors.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

async function backendPid(handle: DatabaseHandle): Promise<number> {
  return (await queryRows<{ pid: number }>(handle.db, sql`select pg_backend_pid() as pid`))[0]!.pid;
}

describe.runIf(testStorage() === 'postgres')('goal 3 of issue 42: public driver calls only', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One connection: one that is not closed would be the one handed out next.
    handle = await openDatabase({ kind: 'postgres', url: database.url as string, poolSize: 1 });
  });
  afterAll(async () => {
    await handle?.close();
    await database?.close();
  });

  it('replaces no method of a pooled pg client, before and after a transaction', async () => {
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
    });
    const client = await handle.pool!.connect();
    try {
      expect(Object.getOwnPropertyNames(client)).not.toContain('query');
      expect(client.query).toBe(pg.Client.prototype.query);
    } finally {
      client.release();
    }
  });

  it('never hands out again a connection whose transaction met a read-only server, even when the transaction went on', async () => {
    let pid = 0;
    await handle.db.transaction(async (tx) => {
      pid = (await queryRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`))[0]!.pid;
      await tx.execute(sql`set transaction read only`);
      // The failure is met inside a savepoint and swallowed: the connection is still lost.
      const failed = await tx
        .transaction((inner) => inner.execute(sql`create temporary table written (x int)`))
        .catch((error: unknown) => error);
      expect(describeDatabaseError(failed)).toMatchObject({ kind: 'unavailable', label: 'read_only' });
    });
    expect(await backendPid(handle)).not.toBe(pid);
  });

  it('gives back a connection whose transaction failed for its own reasons', async () => {
    const pid = await backendPid(handle);
    const failed = await handle.db
      .transaction((tx) => tx.execute(sql`select 1 / 0`))
      .catch((error: unknown) => error);
    expect(describeDatabaseError(failed).dropConnection).toBeFalsy();
    expect(await backendPid(handle)).toBe(pid);
  });
});
