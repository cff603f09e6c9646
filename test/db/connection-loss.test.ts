// A PostgreSQL connection that breaks while a request holds it (the server restarted or failed
// over, or ended the session) fails that request's queries; it never crashes the process. Found by
// the production rehearsal (deploy/rehearsal/): before, node-postgres emitted the break as an
// 'error' event that nobody listened to on a checked-out client, and the instance died.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, sql } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { TEST_DATABASE_URL } from '../helpers/services.js';

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

describe.runIf(testStorage() === 'postgres')('a connection ended while checked out of the pool', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('fails the holder, keeps the process, and the pool serves the next request', async () => {
    const pool = database.handle.pool!;
    const client = await pool.connect();
    const [row] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
    // Between two queries of a transaction: no query is active when the connection breaks.
    await client.query('begin');
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    await terminate(row!.pid);
    await ended;

    await expect(client.query('select 1')).rejects.toThrow();
    client.release(true);
    const rows = await queryRows<{ one: number }>(database.handle.db, sql`select 1 as one`);
    expect(rows).toEqual([{ one: 1 }]);
  });
});
