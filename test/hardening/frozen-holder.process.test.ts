// A frozen instance must not hang the healthy ones (issue: bounded waits). On real server
// processes sharing one PostgreSQL: an instance is stopped (SIGSTOP) while its write transaction
// holds the idempotency row lock; on a healthy instance, /ping keeps answering, retries with the
// same Idempotency-Key get 409 in flight without waiting on that lock (no connection of the
// healthy instance waits on it), and once the database ends the frozen transaction
// (idle_in_transaction_session_timeout) the retry takes the key over and the write happens once.
// PostgreSQL only: several processes cannot share one embedded PGlite directory.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, GENEROUS_LIMITS, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

const IDLE_IN_TRANSACTION_MS = 4000;
const HEALTHY_LOCK_TIMEOUT_MS = 5000;
const RETRIES = 25;

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.runIf(testStorage() === 'postgres')(
  'a frozen instance holding an idempotency row (PostgreSQL)',
  () => {
    let database: TestDatabase;
    let tenant: Tenant;
    let customerId: number;
    let observer: pg.Client;
    const servers: ServerProcess[] = [];

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      tenant = await createTenant(database.handle.db, { name: 'Instância Congelada, Lda' });
      observer = new pg.Client({ connectionString: database.url! });
      await observer.connect();
    });

    afterAll(async () => {
      for (const server of servers) await server.kill('SIGKILL');
      await observer?.end();
      await database.close();
    });

    /** Backends of this database waiting for a heavyweight lock (a row, a transaction). */
    async function lockWaiters(): Promise<{ pid: number; query: string }[]> {
      const result = await observer.query(
        `select pid, query from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
      );
      return result.rows;
    }

    async function backendState(pid: number): Promise<string | null> {
      const result = await observer.query('select state from pg_stat_activity where pid = $1', [pid]);
      return result.rows[0]?.state ?? null;
    }

    it('keeps the healthy instance answering, answers 409 at once, and the takeover works after the database ends the frozen transaction', async () => {
      const env = { DATABASE_URL: database.url!, ...GENEROUS_LIMITS, IDEMPOTENCY_LOCK_TIMEOUT_SECONDS: '1' };
      // The one to freeze waits long for the row the test holds (so it is mid-write when stopped).
      const frozen = await startServerProcess({
        ...env,
        DB_LOCK_TIMEOUT_MS: '60000',
        DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(IDLE_IN_TRANSACTION_MS),
      });
      const healthy = await startServerProcess({
        ...env,
        DB_LOCK_TIMEOUT_MS: String(HEALTHY_LOCK_TIMEOUT_MS),
      });
      servers.push(frozen, healthy);
      // The customer, made through the API like any other.
      const created = await fetch(`${healthy.baseUrl}/customers`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.key}`,
          'content-type': 'application/json',
          'idempotency-key': 'frozen-setup-0001',
        },
        body: JSON.stringify({ name: 'Antes da Paragem' }),
      });
      expect(created.status).toBe(201);
      customerId = (await created.json()).data.id;

      const put = (server: ServerProcess, signal?: AbortSignal) =>
        fetch(`${server.baseUrl}/customers/${customerId}`, {
          method: 'PUT',
          headers: {
            authorization: `Bearer ${tenant.key}`,
            'content-type': 'application/json',
            'idempotency-key': 'frozen-holder-0001',
          },
          body: JSON.stringify({ name: 'Depois da Paragem' }),
          ...(signal ? { signal } : {}),
        });
      const ping = () =>
        fetch(`${healthy.baseUrl}/ping`, { headers: { authorization: `Bearer ${tenant.key}` } });

      // The test holds the customer's row, so the frozen instance's write stops inside its
      // transaction, after it has locked its idempotency row.
      const blocker = new pg.Client({ connectionString: database.url! });
      await blocker.connect();
      await blocker.query('begin');
      await blocker.query('select id from customers where id = $1 for update', [customerId]);
      const abort = new AbortController();
      const frozenAnswer = put(frozen, abort.signal).then(
        (r) => r.status,
        () => null,
      );
      const [holder] = await waitFor('the write to wait on the customer row', async () => {
        const waiters = await lockWaiters();
        return waiters.some((w) => w.query.startsWith('update "customers"')) && waiters;
      });
      frozen.child.kill('SIGSTOP');
      await blocker.query('commit');
      await blocker.end();
      // Its statement finishes on the server; its client, stopped, never commits.
      await waitFor('the frozen transaction to sit idle', async () => {
        return (await backendState(holder!.pid)) === 'idle in transaction';
      });

      // Retries on the healthy instance, first while the record is fresh, then once it is older
      // than the takeover timeout (the takeover finds the row locked and does not wait for it).
      for (const phase of ['fresh', 'stale']) {
        if (phase === 'stale') await sleep(1200);
        const started = Date.now();
        const waitersSeen: number[] = [];
        const sampling = (async () => {
          for (let i = 0; i < 5; i++) {
            waitersSeen.push((await lockWaiters()).length);
            await sleep(20);
          }
        })();
        const answers = await Promise.all(
          Array.from({ length: RETRIES }, async () => {
            const r = await put(healthy);
            return {
              status: r.status,
              body: await r.json(),
              retryAfter: r.headers.get('retry-after'),
              at: Date.now(),
            };
          }),
        );
        await sampling;
        for (const answer of answers) {
          expect(answer.status).toBe(409);
          expect(answer.body.error.code).toBe('idempotency_request_in_flight');
          expect(answer.retryAfter).toBe('2');
          expect(answer.at - started).toBeLessThan(HEALTHY_LOCK_TIMEOUT_MS);
        }
        // No connection of the healthy instance ever waited on the frozen holder's lock.
        expect(waitersSeen.every((n) => n === 0)).toBe(true);
        expect((await ping()).status).toBe(200);
      }
      // Still frozen: the database has not ended it yet or is about to.
      expect(await backendState(holder!.pid)).not.toBeNull();

      // The database ends the frozen transaction; the row lock goes with it.
      await waitFor('the database to end the frozen transaction', async () => {
        return (await backendState(holder!.pid)) === null;
      });
      const takeover = await put(healthy);
      expect(takeover.status).toBe(200);
      expect(takeover.headers.get('idempotency-replay')).toBeNull();
      expect((await takeover.json()).data.name).toBe('Depois da Paragem');
      const replay = await put(healthy);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotency-replay')).toBe('true');

      // The frozen instance wakes up: its transaction is gone, it cannot complete the key.
      frozen.child.kill('SIGCONT');
      const lateStatus = await Promise.race([frozenAnswer, sleep(10_000).then(() => 'no answer')]);
      abort.abort();
      expect(lateStatus).not.toBe(200);
      const stored = await observer.query(
        `select state, response_status from idempotency_keys where key = 'frozen-holder-0001'`,
      );
      expect(stored.rows).toEqual([{ state: 'completed', response_status: 200 }]);
      expect((await ping()).status).toBe(200);
    });
  },
);
