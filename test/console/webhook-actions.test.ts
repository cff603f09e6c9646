// Issue 40, goal 4 and 6: support "resends deliveries, replays a window and sends test events",
// and "every console action ... is an operation of the CLI's define ... The audit trail names the
// staff member as the actor". Through real HTTP on PGlite and PostgreSQL: events made by real API
// writes, then the console's replay form queues them again (the operation's count is shown, the
// deliveries exist), the test form sends a signed ping to a real receiver, both audited as
// `console:<e-mail>`; the same POSTs without the form's token change nothing.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { auditLog } from '../../src/db/schema.js';
import { executeOperation } from '../../src/operations/index.js';
import { signedInPerson, startTestConsole, type TestConsole, type TestPerson } from '../helpers/console.js';
import {
  api,
  createTenant,
  GENEROUS_LIMITS,
  newIdempotencyKey,
  TEST_DOCS_URL,
  type Tenant,
} from '../helpers/context.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

describe('support console webhook actions', () => {
  let database: TestDatabase;
  let app: App;
  let consoleServer: TestConsole;
  let receiver: Receiver;
  let tenant: Tenant;
  let endpointId: number;
  let support: TestPerson;
  let viewer: TestPerson;
  let page: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    app = await buildApp({
      config: loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS }),
      database: database.handle,
      logger: false,
    });
    await app.ready();
    consoleServer = await startTestConsole(database.handle);
    tenant = await createTenant(database.handle.db, { name: 'Ouvinte, Lda' });
    endpointId = (
      await executeOperation(
        consoleServer.setup,
        'webhooks.create',
        { company: tenant.companyId, url: receiver.url('/hook') },
        'test',
      )
    ).id;
    support = await signedInPerson(consoleServer, 'support');
    viewer = await signedInPerson(consoleServer, 'viewer');
    page = `/companies/${tenant.companyId}/webhooks/${endpointId}`;
  });
  afterAll(async () => {
    await consoleServer?.close();
    await app?.close();
    await receiver?.close();
    await database?.close();
  });

  const deliveries = async () =>
    Number(
      (
        await queryRows<{ n: number }>(
          database.handle.db,
          sql`select count(*)::integer as n from webhook_deliveries where endpoint_id = ${endpointId}`,
        )
      )[0]?.n,
    );
  const audited = (email: string) =>
    database.handle.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actor, `console:${email}`), eq(auditLog.companyId, tenant.companyId)));

  it("issue 40: support replays a window: the operation queues the window's events again, audited with the staff member as actor; without the token nothing happens", async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const name of ['Cliente Um', 'Cliente Dois']) {
      const created = await api(app, 'POST', '/customers', {
        key: tenant.key,
        body: { name },
        idempotencyKey: newIdempotencyKey('replay'),
      });
      expect(created.statusCode).toBe(201);
    }
    const before = await deliveries();
    expect(before).toBe(2);
    const action = `${page}/replay`;
    // A forged form (no token), and a viewer's: refused, nothing queued, nothing audited.
    expect((await support.client.submit(page, action, { since }, { csrf: null })).status).toBe(403);
    expect((await viewer.client.submit(page, action, { since })).status).toBe(403);
    expect(await deliveries()).toBe(before);
    expect(await audited(support.email)).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = new Date();
    const answer = await support.client.submit(page, action, { since });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('2 eventos postos de novo na fila.');
    // The two pending deliveries were made due by the replay (none had been attempted: no worker runs here).
    const due = await queryRows<{ n: number }>(
      database.handle.db,
      sql`select count(*)::integer as n from webhook_deliveries
        where endpoint_id = ${endpointId} and updated_at >= ${asked.toISOString()}::timestamptz`,
    );
    expect(Number(due[0]?.n)).toBe(2);
    const [entry] = await audited(support.email);
    expect(entry).toMatchObject({
      command: 'webhooks resend',
      outcome: 'ok',
      objectType: 'webhook',
      objectId: endpointId,
    });
    // A window with nothing in it, and a bad date: the operation's answer, never a 500.
    const empty = await support.client.submit(page, action, { since: '2001-01-01', until: '2001-01-02' });
    expect(empty.text).toContain('0 eventos postos de novo na fila.');
    expect((await support.client.submit(page, action, { since: 'ontem' })).status).toBe(422);
  });

  it('issue 40: support sends a test event: the receiver gets a signed ping at once, audited with the staff member as actor', async () => {
    const action = `${page}/test`;
    expect((await support.client.submit(page, action, {}, { origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect(receiver.at('/hook').filter((r) => r.body.includes('"ping"'))).toEqual([]);

    const answer = await support.client.submit(page, action, { type: '' });
    expect(answer.status).toBe(200);
    const eventId = /Evento de teste (evt_[A-Za-z0-9]+) \(ping\) enviado: succeeded \(2\d\d\)/.exec(
      answer.text,
    )?.[1];
    expect(eventId, answer.text.slice(0, 2000)).toBeDefined();
    const pings = receiver.at('/hook').filter((r) => r.body.includes(eventId as string));
    expect(pings).toHaveLength(1);
    expect(JSON.parse(pings[0]?.body ?? '{}')).toMatchObject({ id: eventId, type: 'ping' });
    const entries = await database.handle.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actor, `console:${support.email}`), eq(auditLog.command, 'webhooks test')));
    // The audit names the endpoint it tested (a refused or forged form wrote nothing).
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      outcome: 'ok',
      objectType: 'webhook',
      objectId: endpointId,
      companyId: tenant.companyId,
    });
    expect(entries[0]?.detail.args).toMatchObject({ id: endpointId });
  });
});
