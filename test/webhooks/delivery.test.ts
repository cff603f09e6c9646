// Webhooks end to end on the current storage: API writes and operator actions record events in
// their transaction, the worker delivers them to a real HTTP receiver on 127.0.0.1, signed so
// that `standardwebhooks` verifies them, with the resource exactly as the API's GET shows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPartnerApi } from '../../src/operations/companies.js';
import type { OperationSetup } from '../../src/operations/define.js';
import { executeOperation, type OperationName } from '../../src/operations/index.js';
import { cancelInvoice, issueInvoice, recordReceipt } from '../../src/operations/invoices.js';
import { EVENT_TYPES } from '../../src/webhooks/event-types.js';
import {
  deliveryBacklog,
  metricsSnapshot,
  watchBacklog,
  webhookRegistry,
} from '../../src/webhooks/metrics.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/webhooks/worker.js';
import {
  api,
  asOperator,
  companyContext,
  createTenant,
  newIdempotencyKey,
  operationSetup,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { createDraft } from '../helpers/invoices.js';
import { type ReceivedRequest, type Receiver, startReceiver, verified } from '../helpers/webhook-receiver.js';

interface LogEntry {
  level: string;
  obj: object;
  msg: string;
}

describe('webhooks: delivery to a real receiver', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: WebhookWorker;
  let operations: OperationSetup;
  const logs: LogEntry[] = [];
  const logger = {
    info: (obj: object, msg: string) => logs.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => logs.push({ level: 'warn', obj, msg }),
    error: (obj: object, msg: string) => logs.push({ level: 'error', obj, msg }),
  };

  // biome-ignore lint/suspicious/noExplicitAny: operation results are plain JSON
  const run = (name: OperationName, args: Record<string, unknown>): Promise<any> =>
    executeOperation(operations, name, args, 'test');
  const key = () => newIdempotencyKey('webhooks');
  const write = async (tenant: Tenant, method: string, path: string, body: unknown) => {
    const res = await api(ctx.app, method, path, { key: tenant.key, idempotencyKey: key(), body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data;
  };
  const read = async (tenant: Tenant, path: string) => {
    const res = await api(ctx.app, 'GET', path, { key: tenant.key });
    expect(res.statusCode).toBe(200);
    return res.json().data;
  };
  const productBody = (name: string) => ({ name, type: 'SERVICES', inventory: 'NON_INVENTORY', price: 250 });
  const endpoint = (tenant: Tenant, path: string, events?: string) =>
    run('webhooks.create', { company: String(tenant.companyId), url: receiver.url(path), events });

  beforeAll(async () => {
    ctx = await startTestApp({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms' });
    operations = operationSetup(ctx.database.handle, {
      timeZone: ctx.config.timeZone,
      webhooks: ctx.config.webhooks,
    });
    receiver = await startReceiver();
    worker = startWebhookWorker({
      handle: ctx.database.handle,
      config: ctx.config,
      log: logger,
      pollIntervalMs: 50,
    });
  });
  afterAll(async () => {
    await receiver?.close(); // first: an attempt left hanging ends at once
    await worker?.stop();
    await ctx?.close();
  });

  it('delivers every event type, signed, with the resource as GET returns it, and only to its company', async () => {
    const shop = await createTenant(ctx.db, { name: 'Loja dos Eventos' });
    const other = await createTenant(ctx.db, { name: 'Outra Empresa' });
    const all = await endpoint(shop, '/shop');
    const onlyPaid = await endpoint(shop, '/shop-paid', 'invoice.paid');
    const foreign = await endpoint(other, '/other');
    expect(all.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(all.events).toEqual(['all']);
    expect(onlyPaid.events).toEqual(['invoice.paid']);

    // What the API shows at each moment, keyed by "type:id".
    const expected = new Map<string, unknown>();
    const customer = await write(shop, 'POST', '/customers', {
      name: 'Ana Macuácua',
      email: 'ana@exemplo.co.mz',
    });
    expected.set(`customer.created:${customer.id}`, customer);
    const changed = await write(shop, 'PUT', `/customers/${customer.id}`, { phone: '+258 84 000 0000' });
    expected.set(`customer.updated:${customer.id}`, changed);
    const product = await write(shop, 'POST', '/products', productBody('Consultoria'));
    expected.set(`product.created:${product.id}`, product);
    const renamed = await write(shop, 'PUT', `/products/${product.id}`, productBody('Consultoria fiscal'));
    expected.set(`product.updated:${product.id}`, renamed);

    const draftBody = {
      customer_id: customer.id,
      invoice_date: '2026-11-20',
      items: [{ product_id: product.id, quantity: 2, price: 250 }],
    };
    const draft = await createDraft(ctx.app, shop, draftBody);
    expected.set(`invoice.created:${draft.id}`, draft);
    await issueInvoice(asOperator(ctx.db, ctx.config.timeZone), draft.id);
    expected.set(`invoice.issued:${draft.id}`, await read(shop, `/invoices/${draft.id}`));
    const first = await recordReceipt(asOperator(ctx.db, ctx.config.timeZone), {
      invoiceId: draft.id,
      amount: '100.00',
    });
    expected.set(`payment.created:${first.id}`, await read(shop, `/payments/${first.id}`));
    expected.set(`invoice.partially_paid:${draft.id}`, await read(shop, `/invoices/${draft.id}`));
    const second = await recordReceipt(asOperator(ctx.db, ctx.config.timeZone), {
      invoiceId: draft.id,
      amount: '400.00',
    });
    expected.set(`payment.created:${second.id}`, await read(shop, `/payments/${second.id}`));
    expected.set(`invoice.paid:${draft.id}`, await read(shop, `/invoices/${draft.id}`));

    const doomed = await createDraft(ctx.app, shop, draftBody);
    expected.set(`invoice.created:${doomed.id}`, doomed);
    await issueInvoice(asOperator(ctx.db, ctx.config.timeZone), doomed.id);
    expected.set(`invoice.issued:${doomed.id}`, await read(shop, `/invoices/${doomed.id}`));
    await cancelInvoice(asOperator(ctx.db, ctx.config.timeZone), doomed.id);
    expected.set(`invoice.cancelled:${doomed.id}`, await read(shop, `/invoices/${doomed.id}`));

    const theirs = await write(other, 'POST', '/customers', { name: 'Cliente de outra empresa' });

    await receiver.waitFor(
      () =>
        receiver.at('/shop').length >= expected.size &&
        receiver.at('/shop-paid').length >= 1 &&
        receiver.at('/other').length >= 1,
    );
    const received = receiver.at('/shop').map((request) => verified(request, all.secret));
    expect(received).toHaveLength(expected.size);
    expect(new Set(received.map((event) => event.type))).toEqual(new Set(EVENT_TYPES));
    for (const event of received) {
      expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/);
      expect(event.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+02:00$/);
      expect(event.data, `${event.type} ${event.data.id}`).toEqual(
        expected.get(`${event.type}:${event.data.id}`),
      );
    }
    // Events of one endpoint arrive in the order they were created (all first attempts succeeded).
    expect(received.map((event) => `${event.type}:${event.data.id}`)).toEqual([...expected.keys()]);

    const paid = receiver.at('/shop-paid').map((request) => verified(request, onlyPaid.secret));
    expect(paid.map((event) => event.type)).toEqual(['invoice.paid']);
    // The other company's endpoint got its own customer and nothing of the shop's.
    const theirsReceived = receiver.at('/other').map((request) => verified(request, foreign.secret));
    expect(theirsReceived.map((event) => [event.type, event.data])).toEqual([['customer.created', theirs]]);
    // A signature made with another endpoint's secret does not verify.
    expect(() => verified(receiver.at('/other')[0] as ReceivedRequest, all.secret)).toThrow();
  });

  it('retries a receiver that is down, logs each attempt, and resends on demand', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Receptor Instável' });
    receiver.on('/flaky', (n) => (n < 2 ? { status: 503, body: 'indisponível' } : { status: 204 }));
    const hook = await endpoint(tenant, '/flaky');
    const product = await write(tenant, 'POST', '/products', productBody('Manutenção'));

    await receiver.waitFor((requests) => requests.filter((r) => r.path === '/flaky').length >= 3);
    const attempts = receiver.at('/flaky');
    expect(new Set(attempts.map((request) => request.headers['webhook-id'])).size).toBe(1);
    for (const request of attempts) expect(verified(request, hook.secret).data).toEqual(product);

    // The receiver has answered; the worker writes the outcome just after.
    let log = await run('webhooks.deliveries', { id: String(hook.id) });
    for (let tries = 0; log.deliveries[0]?.status !== 'succeeded' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      log = await run('webhooks.deliveries', { id: String(hook.id) });
    }
    expect(
      log.deliveries.map((row: { attempt: number; status: string; status_code: number }) => [
        row.attempt,
        row.status,
        row.status_code,
      ]),
    ).toEqual([
      [3, 'succeeded', 204],
      [2, 'failed', 503],
      [1, 'failed', 503],
    ]);
    expect(log.deliveries[1]).toMatchObject({
      event_id: attempts[0]?.headers['webhook-id'],
      type: 'product.created',
      error: 'HTTP 503',
    });
    expect(typeof log.deliveries[0].latency_ms).toBe('number');
    const failed = await run('webhooks.deliveries', { id: String(hook.id), failed: true, limit: '1' });
    expect(failed.deliveries.map((row: { attempt: number }) => row.attempt)).toEqual([2]);

    const eventId = attempts[0]?.headers['webhook-id'];
    const resent = await run('webhooks.resend', { event: eventId });
    expect(resent.deliveries).toEqual([{ endpoint_id: hook.id, delivery_id: expect.any(Number) }]);
    await receiver.waitFor((requests) => requests.filter((r) => r.path === '/flaky').length >= 4);
    const again = receiver.at('/flaky')[3] as ReceivedRequest;
    expect(again.headers['webhook-id']).toBe(eventId);
    expect(verified(again, hook.secret).data).toEqual(product);
    await expect(run('webhooks.resend', { event: 'evt_000000000000000000000000' })).rejects.toThrow(
      /does not exist/,
    );
  });

  it('gives up after the last retry: the endpoint is disabled, that is logged, and enable resumes', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Receptor Avariado' });
    let healthy = false;
    receiver.on('/broken', () => (healthy ? { status: 200 } : { status: 500 }));
    const hook = await endpoint(tenant, '/broken');
    // A failed ping is shown, never retried, and does not disable the endpoint.
    const ping = await run('webhooks.test', { id: String(hook.id) });
    expect(ping).toMatchObject({ status: 'failed', status_code: 500, error: 'HTTP 500' });
    expect((await run('webhooks.deliveries', { id: String(hook.id) })).deliveries).toEqual([
      expect.objectContaining({
        event_id: ping.event_id,
        type: 'ping',
        attempt: 1,
        status: 'failed',
        next_attempt_at: null,
      }),
    ]);
    await write(tenant, 'POST', '/customers', { name: 'Primeiro' });

    await receiver.waitFor((requests) => requests.filter((r) => r.path === '/broken').length >= 4);
    const deadline = Date.now() + 5000;
    let listed: { enabled: boolean; disabled_reason: string | null } | undefined;
    while (Date.now() < deadline) {
      listed = (await run('webhooks.list', { company: String(tenant.companyId) })).endpoints[0];
      if (listed?.enabled === false) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed?.enabled).toBe(false);
    expect(listed?.disabled_reason).toMatch(/failed 3 attempts \(last: HTTP 500\)/);
    expect(receiver.at('/broken')).toHaveLength(4);
    const warned = () =>
      logs.some((entry) => entry.level === 'warn' && entry.msg.includes(`endpoint ${hook.id} disabled`));
    for (let tries = 0; !warned() && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(warned()).toBe(true);

    // While disabled, nothing is queued for it; once enabled, new events flow again.
    await write(tenant, 'POST', '/customers', { name: 'Durante a pausa' });
    healthy = true;
    await run('webhooks.enable', { id: String(hook.id) });
    const after = await write(tenant, 'POST', '/customers', { name: 'Depois' });
    await receiver.waitFor((requests) => requests.filter((r) => r.path === '/broken').length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const delivered = receiver
      .at('/broken')
      .slice(4)
      .map((request) => verified(request, hook.secret).data);
    expect(delivered).toEqual([after]);
  });

  it('signs with both secrets for 24 hours after a rotation; pings on demand; disable stops deliveries', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Rotação' });
    const hook = await endpoint(tenant, '/rotating');
    const rotated = await run('webhooks.rotate-secret', { id: String(hook.id) });
    expect(rotated.secret).not.toBe(hook.secret);
    const hours = (Date.parse(rotated.previous_secret_valid_until) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const ping = await run('webhooks.test', { id: String(hook.id) });
    expect(ping).toMatchObject({ status: 'succeeded', status_code: 200, error: null });
    const [request] = receiver.at('/rotating');
    expect(request?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    const fromNew = verified(request as ReceivedRequest, rotated.secret);
    const fromOld = verified(request as ReceivedRequest, hook.secret);
    expect(fromNew).toEqual(fromOld);
    expect(fromNew).toMatchObject({ id: ping.event_id, type: 'ping', data: { endpoint_id: hook.id } });

    const listed = (await run('webhooks.list', { company: String(tenant.companyId) })).endpoints;
    expect(JSON.stringify(listed)).not.toContain('whsec_');

    await run('webhooks.disable', { id: String(hook.id) });
    await expect(run('webhooks.test', { id: String(hook.id) })).rejects.toThrow(/disabled/);
    await write(tenant, 'POST', '/customers', { name: 'Ninguém ouve' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/rotating')).toHaveLength(1);
  });

  it('queues nothing for a company whose partner API is disabled', async () => {
    const tenant = await createTenant(ctx.db, { name: 'API desligada' });
    const hook = await endpoint(tenant, '/switched-off');
    const customer = await write(tenant, 'POST', '/customers', { name: 'Antes' });
    const product = await write(tenant, 'POST', '/products', productBody('Serviço'));
    await receiver.waitFor((requests) => requests.filter((r) => r.path === '/switched-off').length >= 2);

    // With the API off the partner cannot write; the application still issues invoices.
    await setPartnerApi(ctx.db, tenant.companyId, false);
    const { createDraftInvoice } = await import('../../src/invoices/service.js');
    const { id } = await createDraftInvoice(companyContext(ctx.db, tenant.companyId, ctx.config.timeZone), {
      customer_id: customer.id,
      invoice_date: '2026-11-20',
      items: [{ product_id: product.id, quantity: 1, price: 10 }],
    });
    await issueInvoice(asOperator(ctx.db, ctx.config.timeZone), id);
    await expect(run('webhooks.test', { id: String(hook.id) })).rejects.toThrow(/partner API/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/switched-off').map((request) => verified(request, hook.secret).type)).toEqual([
      'customer.created',
      'product.created',
    ]);
  });

  it('refuses unsafe URLs when the endpoint is created', async () => {
    const tenant = await createTenant(ctx.db, { name: 'Endereços' });
    const create = (url: string) => run('webhooks.create', { company: String(tenant.companyId), url });
    await expect(create('https://10.0.0.8/hooks')).rejects.toThrow(/private/);
    await expect(create('https://192.168.1.20/hooks')).rejects.toThrow(/private/);
    await expect(create('https://169.254.169.254/latest/meta-data')).rejects.toThrow(/link-local/);
    await expect(create('https://[fd00::1]/hooks')).rejects.toThrow(/private/);
    await expect(create('https://[::ffff:10.1.2.3]/hooks')).rejects.toThrow(/private/);
    // issue 38, goal 3: IPv6 forms that carry an IPv4 address are judged by it, or as non-public.
    for (const address of [
      '::a00:1',
      '::ffff:0:a00:1',
      '64:ff9b:1::a00:1',
      '2002:a00:1::1',
      '2001:0:a00:1::1',
    ]) {
      await expect(create(`https://[${address}]/hooks`), address).rejects.toThrow(/private/);
    }
    await expect(create('http://93.184.215.14/hooks')).rejects.toThrow(/loopback addresses only/);
    await expect(create('ftp://example.com/hooks')).rejects.toThrow(/https/);
    await expect(create('https://user:secret@93.184.215.14/')).rejects.toThrow(/user name/);
    await expect(
      run('webhooks.create', {
        company: String(tenant.companyId),
        url: receiver.url('/x'),
        events: 'invoice.paid,invoice.lost',
      }),
    ).rejects.toThrow(/unknown event type invoice\.lost/);
    await expect(run('webhooks.create', { company: '999999', url: receiver.url('/x') })).rejects.toThrow(
      /999999/,
    );
    expect((await run('webhooks.list', { company: String(tenant.companyId) })).endpoints).toEqual([]);
  });

  it('counts attempts, failures, give-ups and lag, and reads the backlog', async () => {
    const counters = await metricsSnapshot();
    expect(counters.failed).toBeGreaterThanOrEqual(4); // the flaky receiver twice, the broken one 3 times (+ pings)
    expect(counters.exhausted).toBeGreaterThanOrEqual(1);
    expect(counters.endpointsDisabled).toBeGreaterThanOrEqual(1);
    expect(counters.lagCount).toBeGreaterThan(10);
    expect(counters.lagCount).toBeLessThanOrEqual(counters.succeeded);
    expect(counters.lagSumSeconds).toBeGreaterThan(0.3); // a delivery that waited for its retries
    // Prometheus text: counters (rate() and increase() survive a restart's reset), not gauges.
    const text = await webhookRegistry.metrics();
    expect(text).toContain('# TYPE invoicing_webhook_attempts_total counter');
    expect(text).toContain('# TYPE invoicing_webhook_deliveries_exhausted_total counter');
    expect(text).toContain('# TYPE invoicing_webhook_delivery_lag_seconds histogram');
    expect(text).toMatch(/^invoicing_webhook_attempts_total\{outcome="failed"\} \d+$/m);

    const tenant = await createTenant(ctx.db, { name: 'Fila' });
    receiver.on('/stuck', () => ({ hang: true }));
    await endpoint(tenant, '/stuck');
    const before = await deliveryBacklog(ctx.db);
    await write(tenant, 'POST', '/customers', { name: 'Em espera 1' });
    await write(tenant, 'POST', '/customers', { name: 'Em espera 2' });
    await receiver.waitFor((requests) => requests.some((r) => r.path === '/stuck'));
    const backlog = await deliveryBacklog(ctx.db);
    expect(backlog.pending).toBe(before.pending + 2);
    expect(backlog.oldestDueSeconds).toBeGreaterThanOrEqual(0);
    watchBacklog(ctx.db);
    const scraped = await webhookRegistry.metrics();
    expect(scraped).toMatch(new RegExp(`^invoicing_webhook_deliveries_pending ${backlog.pending}$`, 'm'));
    expect(scraped).toMatch(/^invoicing_webhook_oldest_due_seconds [\d.]+$/m);
  });
});
