// Deliveries are attempted outside the API's connections (issue 20, item 2): taken with a lease in
// one short committed statement, the HTTP attempt made holding no connection, the outcome written
// in another short transaction guarded by the lease. Same code on PGlite and PostgreSQL.
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { webhookAttempts, webhookDeliveries } from '../../src/db/schema.js';
import { executeOperation } from '../../src/operations/index.js';
import { attemptDelivery, claimDue, saveOutcome } from '../../src/webhooks/deliveries.js';
import { recordEvent } from '../../src/webhooks/events.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/webhooks/worker.js';
import { companyContext, createTenant, operationSetup } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

describe(`webhook deliveries with leases (${testStorage()})`, () => {
  let database: TestDatabase;
  let receiver: Receiver;
  let config: Config;
  const workers: WebhookWorker[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    config = loadConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' });
  });
  afterAll(async () => {
    await receiver?.close();
    for (const worker of workers) await worker.stop({ graceMs: 0 });
    await database?.close();
  });

  /** A company with one endpoint per path, and one event queued for each. */
  async function queue(name: string, paths: string[]): Promise<number> {
    const { db } = database.handle;
    const tenant = await createTenant(db, { name });
    for (const path of paths) {
      await executeOperation(
        operationSetup(database.handle, { timeZone: config.timeZone, webhooks: config.webhooks }),
        'webhooks.create',
        { company: String(tenant.companyId), url: receiver.url(path) },
        'test',
      );
    }
    await db.transaction((tx) =>
      recordEvent(companyContext(tx, tenant.companyId, config.timeZone), 'customer.updated', { name }),
    );
    return tenant.companyId;
  }

  const deliveriesOf = (companyId: number) =>
    database.handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.companyId, companyId));

  it('an expired lease is taken again, and the late outcome of its first holder is not written', async () => {
    const { db } = database.handle;
    receiver.on('/expired', () => ({ status: 204 }));
    const companyId = await queue('Arrendamento Expirado', ['/expired']);
    const [first] = await claimDue(db, { owner: 'test.a', leaseMs: 300, limit: 10 });
    expect(first).toBeDefined();
    // Held: nobody else takes it (nor anything else of its endpoint).
    expect(
      (await claimDue(db, { owner: 'test.b', leaseMs: 60_000, limit: 10 })).map((d) => d.id),
    ).not.toContain(first?.id);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const [again] = await claimDue(db, { owner: 'test.b', leaseMs: 60_000, limit: 10 });
    expect(again?.id).toBe(first?.id);

    const result = await attemptDelivery(again!, { policy: { allowHttp: true, allowPrivate: true } });
    const late = await saveOutcome(db, first!, result, config.webhooks.retrySchedule, { owner: 'test.a' });
    expect(late.recorded).toBe(false);
    const current = await saveOutcome(db, again!, result, config.webhooks.retrySchedule, { owner: 'test.b' });
    expect(current).toMatchObject({ recorded: true, attempt: 1 });
    const [delivery] = await deliveriesOf(companyId);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, leaseOwner: null, leasedUntil: null });
    const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, first!.id));
    expect(attempts).toHaveLength(1);
  });

  it('an attempt abandoned at shutdown gives its lease back: the next worker makes it at once', async () => {
    receiver.on('/abandoned', (n) => (n === 0 ? { hang: true } : { status: 200 }));
    const companyId = await queue('Encerramento', ['/abandoned']);
    const first = startWebhookWorker({ handle: database.handle, config, log: quiet, pollIntervalMs: 20 });
    workers.push(first);
    await receiver.waitFor((requests) => requests.some((r) => r.path === '/abandoned'), 15_000);
    await first.stop({ graceMs: 50 });
    const [released] = await deliveriesOf(companyId);
    expect(released).toMatchObject({ status: 'pending', attempts: 0, leaseOwner: null, leasedUntil: null });

    workers.push(startWebhookWorker({ handle: database.handle, config, log: quiet, pollIntervalMs: 20 }));
    await receiver.waitFor((requests) => requests.filter((r) => r.path === '/abandoned').length >= 2, 15_000);
    for (let tries = 0; tries < 100; tries++) {
      const [delivery] = await deliveriesOf(companyId);
      if (delivery?.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [delivered] = await deliveriesOf(companyId);
    expect(delivered).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it.runIf(testStorage() === 'postgres')(
    'during slow receivers no session of the service is idle in a transaction, and no connection is held',
    async () => {
      const paths = ['/slow1', '/slow2', '/slow3', '/slow4'];
      for (const path of paths) receiver.on(path, () => ({ status: 200, delayMs: 4000 }));
      await queue('Recetores Lentos', paths);
      workers.push(startWebhookWorker({ handle: database.handle, config, log: quiet, pollIntervalMs: 20 }));
      await receiver.waitFor(
        (requests) => paths.every((path) => requests.some((r) => r.path === path)),
        15_000,
      );

      // All four attempts are waiting on their receivers now (4 s each): none holds a connection
      // or leaves a session idle in a transaction. A claim poll of the worker (every 20 ms) may be
      // running at a given moment: the check is repeated until a moment between polls, bounded
      // well within the receivers' 4 s, so a connection held by an attempt would still fail it.
      const pool = database.handle.pool as pg.Pool;
      const observer = new pg.Client({ connectionString: database.url as string });
      await observer.connect();
      try {
        await vi.waitFor(
          async () => {
            expect(pool.totalCount - pool.idleCount).toBe(0);
            const { rows } = await observer.query<{ state: string; query: string }>(
              `select state, query from pg_stat_activity
               where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`,
            );
            expect(rows).toEqual([]);
          },
          { timeout: 2000, interval: 5 },
        );
      } finally {
        await observer.end();
      }
    },
  );
});
