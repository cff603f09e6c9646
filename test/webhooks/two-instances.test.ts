// Two server instances on one PostgreSQL, each with its own worker and connections: every
// attempt is made once (FOR UPDATE SKIP LOCKED), both instances share the work, and each endpoint
// gets its events one at a time, in the order they were created.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { webhookAttempts, webhookDeliveries } from '../../src/db/schema.js';
import { executeOperation } from '../../src/operations/index.js';
import { recordEvent } from '../../src/webhooks/events.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/webhooks/worker.js';
import { companyContext, createTenant, operationSetup } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';
import { type Receiver, startReceiver, verified } from '../helpers/webhook-receiver.js';

const ENDPOINTS = 6;
const EVENTS = 15;

describe.runIf(testStorage() === 'postgres')('webhooks: two instances on one PostgreSQL', () => {
  let database: TestDatabase;
  let second: DatabaseHandle;
  let receiver: Receiver;
  const workers: WebhookWorker[] = [];
  const delivered = new Map<string, number>();

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    second = await openDatabase({ kind: 'postgres', url: database.url as string, poolSize: 4 });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await receiver?.close();
    await second?.close();
    await database?.close();
  });

  it('delivers each attempt once, shares the work, and keeps each endpoint in order', async () => {
    const config = loadConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' });
    const { db } = database.handle;
    const tenant = await createTenant(db, { name: 'Duas Instâncias' });
    const secrets = new Map<string, string>();
    for (let i = 0; i < ENDPOINTS; i++) {
      // A little latency, so that attempts overlap and both instances are busy at once.
      receiver.on(`/e${i}`, () => ({ status: 200, delayMs: 15 }));
      const endpoint = await executeOperation(
        operationSetup(database.handle, { webhooks: config.webhooks }),
        'webhooks.create',
        { company: String(tenant.companyId), url: receiver.url(`/e${i}`) },
        'test',
      );
      secrets.set(`/e${i}`, endpoint.secret);
    }
    const created: string[] = [];
    for (let n = 0; n < EVENTS; n++) {
      const id = await db.transaction((tx) =>
        recordEvent(companyContext(tx, tenant.companyId, config.timeZone), 'customer.updated', { n }),
      );
      created.push(id as string);
    }

    const logFor = (instance: string) => ({
      info: (_obj: object, msg: string) => {
        if (msg === 'webhook delivered') delivered.set(instance, (delivered.get(instance) ?? 0) + 1);
      },
      warn: () => {},
      error: () => {},
    });
    for (const [name, handle] of [
      ['first', database.handle],
      ['second', second],
    ] as const) {
      workers.push(
        startWebhookWorker({ handle, config, log: logFor(name), concurrency: 2, pollIntervalMs: 20 }),
      );
    }

    await receiver.waitFor((requests) => requests.length >= ENDPOINTS * EVENTS, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // anything extra would show up now
    expect(receiver.requests).toHaveLength(ENDPOINTS * EVENTS);
    for (let i = 0; i < ENDPOINTS; i++) {
      const path = `/e${i}`;
      const events = receiver.at(path).map((request) => verified(request, secrets.get(path) as string));
      expect(events.map((event) => event.id)).toEqual(created);
    }
    const attempts = await db.select().from(webhookAttempts);
    expect(attempts).toHaveLength(ENDPOINTS * EVENTS);
    expect(attempts.every((attempt) => attempt.succeeded && attempt.attempt === 1)).toBe(true);
    const pending = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending'));
    expect(pending).toEqual([]);
    // Two lanes each cannot serve six endpoints alone: both instances delivered.
    expect(delivered.get('first')).toBeGreaterThan(0);
    expect(delivered.get('second')).toBeGreaterThan(0);
  });
});
