// openapi.json describes the webhooks the server really sends. A real server (`bin/invoicing
// serve`) delivers every event type to a receiver set up with `bin/invoicing webhooks create` (and
// the ping of `webhooks test`): each delivery's body matches the schema of its type under
// `webhooks` (the envelope, `data` as the resource's own schema) and its signature headers match
// theirs; the headers sign the body (Standard Webhooks); and every documented type is one the
// service sends.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, PING_EVENT } from '../../src/webhooks/event-types.js';
import {
  apiCall,
  type CliStorage,
  cliJson,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { webhookProblems } from '../helpers/conformance.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

const ALL_TYPES = [...EVENT_TYPES, PING_EVENT];

describe('webhooks in openapi.json: real deliveries of the server', {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  let storage: CliStorage;
  let env: Record<string, string>;
  let serve: ServeProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    storage = await createCliStorage();
    env = { ...storage.env, WEBHOOK_ALLOW_HTTP: 'true' };
    serve = await startServe(env);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await serve?.stop();
    await storage?.close();
  });

  it('documents exactly the types the service sends', () => {
    for (const file of ['openapi.json', 'openapi.en.json']) {
      const document = JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
      expect(Object.keys(document.webhooks).sort(), file).toEqual([...ALL_TYPES].sort());
    }
  });

  it('every event type, as delivered, matches its schema and is signed', async () => {
    const cli = <T = Record<string, unknown>>(args: string[]) => cliJson<T>(args, env);
    const company = await cli<{ id: number }>(['companies', 'create', '--name', 'Eventos Documentados, Lda']);
    await cli(['companies', 'enable-api', String(company.id)]);
    const { key } = await cli<{ key: string }>(['keys', 'create', '--company', String(company.id)]);
    const endpoint = await cli<{ id: number; secret: string }>([
      'webhooks',
      'create',
      '--company',
      String(company.id),
      '--url',
      receiver.url('/documented'),
    ]);
    const write = async (method: string, path: string, body: unknown) => {
      const answer = await apiCall(serve.apiBaseUrl, key, path, {
        method,
        body,
        idempotencyKey: randomUUID(),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      return answer.body.data as { id: number };
    };
    const customer = await write('POST', '/customers', { name: 'Cliente dos Eventos', nuit: '400339910' });
    await write('PUT', `/customers/${customer.id}`, { phone: '+258 84 000 0001' });
    const product = { name: 'Serviço dos Eventos', type: 'SERVICES', inventory: 'NON_INVENTORY', price: 100 };
    const created = await write('POST', '/products', product);
    await write('PUT', `/products/${created.id}`, { ...product, price: 120.5 });
    const draft = (items: unknown[]) =>
      write('POST', '/invoices', { customer_id: customer.id, invoice_date: '2026-11-22', items });
    const paid = await draft([{ product_id: created.id, quantity: 2, price: 120.5, tax_id: null }]);
    const cancelled = await draft([{ product_id: created.id, quantity: 1, price: 50 }]);
    await Promise.all([paid, cancelled].map((invoice) => cli(['invoices', 'issue', String(invoice.id)])));
    await Promise.all([
      cli(['invoices', 'cancel', String(cancelled.id)]),
      cli(['payments', 'record', '--invoice', String(paid.id), '--amount', '100.00']).then(() =>
        cli(['payments', 'record', '--invoice', String(paid.id), '--amount', '141.00']),
      ),
      cli(['webhooks', 'test', String(endpoint.id)]),
    ]);

    const typeOf = (body: string) => (JSON.parse(body) as { type: string }).type;
    await receiver.waitFor(
      (requests) => ALL_TYPES.every((type) => requests.some((request) => typeOf(request.body) === type)),
      60_000,
      'one delivery of every type',
    );
    const deliveries = receiver.at('/documented');
    expect(new Set(deliveries.map((delivery) => typeOf(delivery.body)))).toEqual(new Set(ALL_TYPES));
    for (const delivery of deliveries) {
      expect(webhookProblems(delivery), delivery.body.slice(0, 300)).toEqual([]);
      expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers)).toMatchObject({
        id: delivery.headers['webhook-id'],
      });
    }
  });

  it('the check names what differs: an undocumented field, a wrong data, a missing header', () => {
    const delivery = receiver.at('/documented').find((one) => one.body.includes('"customer.created"'))!;
    const event = JSON.parse(delivery.body);
    const problems = (body: unknown, headers = delivery.headers) =>
      webhookProblems({ headers, body: JSON.stringify(body) }).join('\n');
    expect(problems({ ...event, surprise: 1 })).toMatch(/customer\.created: body does not match/);
    expect(problems({ ...event, data: { ...event.data, id: String(event.data.id) } })).toMatch(
      /must be integer/,
    );
    expect(problems({ ...event, type: 'customer.deleted' })).toMatch(/customer\.deleted is not documented/);
    const { 'webhook-signature': _, ...unsigned } = delivery.headers;
    expect(problems(event, unsigned)).toMatch(/header webhook-signature is missing/);
  });
});
