// Issue 22, items 3 and 4, through the real bin/invoicing next to a real `serve` and real HTTP
// (PGlite: the commands go through the server's admin socket; PostgreSQL: they open the database
// themselves): support finds a request by the X-Request-Id a partner received, with what it
// created and the events it caused; lists filter and never cross companies; a key's usage per
// day; a key rolled; and the last requests are written when the server stops.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  apiCall,
  type CliStorage,
  commandJson,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runCli,
  runInProcess,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { type Receiver, startReceiver, verified } from '../helpers/webhook-receiver.js';

interface Key {
  id: number;
  key: string;
}
// biome-ignore lint/suspicious/noExplicitAny: JSON answers of the commands, checked field by field
type Json = any;

/** Bounded: the log is written within about a second of the answer. */
const WRITTEN = { timeout: 15_000, interval: 200 };

describe('requests list / show, keys usage / roll through the CLI', {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  let storage: CliStorage;
  let server: ServeProcess;
  let receiver: Receiver;
  let env: Record<string, string>;
  let companyId: string;
  let key: Key;
  let secondKey: Key;
  let otherKey: Key;
  let secret: string;

  const cli = <T = Json>(args: string[]) => commandJson<T>(args, env);
  /** A request's `requests show`, once the log has it. */
  const shown = async (requestId: string, until: (shown: Json) => boolean = () => true) => {
    let result: Json;
    await vi.waitFor(async () => {
      result = await cli(['requests', 'show', requestId]);
      expect(until(result)).toBe(true);
    }, WRITTEN);
    return result;
  };
  const call = async (apiKey: string, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.apiBaseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${apiKey}`, ...(init.headers as Record<string, string>) },
    });
    return { status: response.status, requestId: response.headers.get('x-request-id') as string, response };
  };

  beforeAll(async () => {
    storage = await createCliStorage();
    // (English asked for: this file asserts the command line's English texts)
    env = { ...storage.env, WEBHOOK_ALLOW_HTTP: 'true', INVOICING_LANG: 'en' };
    [server, receiver] = await Promise.all([startServe(env, { json: true }), startReceiver()]);
    const company = await cli(['companies', 'create', '--name', 'Suporte Pergunta, Lda']);
    companyId = String(company.id);
    await cli(['companies', 'enable-api', companyId]);
    key = await cli<Key>(['keys', 'create', '--company', companyId, '--days', '90']);
    secondKey = await cli<Key>(['keys', 'create', '--company', companyId, '--scopes', 'customers:read']);
    const other = await cli(['companies', 'create', '--name', 'Vizinha Curiosa, Lda']);
    await cli(['companies', 'enable-api', String(other.id)]);
    otherKey = await cli<Key>(['keys', 'create', '--company', String(other.id)]);
    const endpoint = await cli([
      'webhooks',
      'create',
      '--company',
      companyId,
      '--url',
      receiver.url('/hooks'),
      '--events',
      'customer.created,customer.updated',
    ]);
    secret = endpoint.secret;
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await storage?.close();
  });

  it('requests show REQUEST_ID: the write, the customer it created, the event it caused and its delivery; a replay points at it', async () => {
    const body = JSON.stringify({ name: 'Armazém Xiquelene', email: 'compras@xiquelene.co.mz' });
    const write = (idempotencyKey: string) =>
      call(key.key, '/customers', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body,
      });
    const created = await write('suporte-0001');
    expect(created.status).toBe(201);
    const customer = (await created.response.json()).data;
    const replay = await write('suporte-0001');
    expect(replay.response.headers.get('idempotency-replay')).toBe('true');

    await receiver.waitFor((requests) => requests.length >= 1, 20_000, 'the customer.created delivery');
    const delivered = verified(receiver.at('/hooks')[0]!, secret);
    // Once the attempt is saved, the request shows it.
    const first = await shown(
      created.requestId,
      (result) => result.events[0]?.deliveries[0]?.attempts.length === 1,
    );
    expect(first.request).toMatchObject({
      request_id: created.requestId,
      company_id: Number(companyId),
      company_name: 'Suporte Pergunta, Lda',
      api_key_id: key.id,
      method: 'POST',
      route: '/customers',
      status: 201,
      error_code: null,
      idempotency_key: 'suporte-0001',
      replayed: false,
      client_ip: '127.0.0.1',
    });
    expect(first.record).toMatchObject({
      idempotency_key: 'suporte-0001',
      state: 'completed',
      response_status: 201,
      resource: { type: 'customer', id: customer.id },
      created_by_request_id: created.requestId,
    });
    expect(first.events).toEqual([
      {
        event_id: delivered.id,
        type: 'customer.created',
        created_at: expect.any(String),
        deliveries: [
          {
            delivery_id: expect.any(Number),
            endpoint_id: expect.any(Number),
            status: 'succeeded',
            attempts: [
              {
                attempt: 1,
                succeeded: true,
                status_code: 200,
                latency_ms: expect.any(Number),
                error: null,
                at: expect.any(String),
              },
            ],
          },
        ],
      },
    ]);
    expect(delivered.data.id).toBe(customer.id);

    const replayed = await shown(replay.requestId);
    expect(replayed.request).toMatchObject({ replayed: true, status: 201, idempotency_key: 'suporte-0001' });
    expect(replayed.record).toMatchObject({
      resource: { type: 'customer', id: customer.id },
      created_by_request_id: created.requestId,
    });
    expect(replayed.events.map((event: Json) => event.event_id)).toEqual([delivered.id]);

    const text = await runInProcess(['requests', 'show', created.requestId], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `Request ${created.requestId} of company ${companyId} (Suporte Pergunta, Lda)`,
    );
    expect(text.stdout).toContain(`${delivered.id} customer.created`);
    expect(text.stdout).toMatch(/attempt 1 at .*: ok \(200/);

    const unknown = await runInProcess(['requests', 'show', `req_${'0'.repeat(24)}`, '--json'], env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error.message).toMatch(/is not in the request log/);
  });

  it('requests list: by key, status, route and time, newest first, never another company’s', async () => {
    const notFound = await call(key.key, '/customers/999999');
    const badQuery = await call(key.key, '/customers?stauts=paid');
    const second = await call(secondKey.key, '/ping');
    const forbidden = await call(secondKey.key, '/invoices');
    const neighbour = await call(otherKey.key, '/ping');
    expect([notFound.status, badQuery.status, second.status, forbidden.status, neighbour.status]).toEqual([
      404, 422, 200, 403, 200,
    ]);
    const ids = (result: Json) => result.requests.map((request: Json) => request.request_id);
    const list = (...flags: string[]) => cli(['requests', 'list', '--company', companyId, ...flags]);
    let all: Json;
    await vi.waitFor(async () => {
      all = await list();
      expect(ids(all)).toEqual(expect.arrayContaining([notFound.requestId, forbidden.requestId]));
    }, WRITTEN);
    expect(all.company_id).toBe(Number(companyId));
    expect(ids(all)).not.toContain(neighbour.requestId);
    const times = all.requests.map((request: Json) => Date.parse(request.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all.requests.find((request: Json) => request.request_id === notFound.requestId)).toMatchObject({
      api_key_id: key.id,
      method: 'GET',
      route: '/customers/{id}',
      status: 404,
      error_code: 'resource_not_found',
      idempotency_key: null,
      replayed: false,
      duration_ms: expect.any(Number),
    });

    expect(ids(await list('--status', '4xx')).sort()).toEqual(
      [notFound.requestId, badQuery.requestId, forbidden.requestId].sort(),
    );
    expect(ids(await list('--status', '404'))).toEqual([notFound.requestId]);
    expect(ids(await list('--status', '5xx'))).toEqual([]);
    expect(ids(await list('--route', '/customers/{id}'))).toEqual([notFound.requestId]);
    expect(ids(await list('--route', 'customers/:id'))).toEqual([notFound.requestId]);
    expect(ids(await list('--key', String(secondKey.id)))).toEqual([forbidden.requestId, second.requestId]);
    expect(ids(await list('--key', String(otherKey.id)))).toEqual([]);
    expect(ids(await list('--since', '1h'))).toEqual(ids(all));
    expect(ids(await list('--since', '2099-01-01'))).toEqual([]);
    expect(ids(await list('--limit', '2'))).toEqual(ids(all).slice(0, 2));
    // The neighbour's request may go in the batch after the others: wait for it the same way.
    await vi.waitFor(async () => {
      const neighbours = await cli(['requests', 'list', '--company', String(all.company_id + 1)]);
      expect(ids(neighbours)).toEqual([neighbour.requestId]);
    }, WRITTEN);

    const table = await runInProcess(['requests', 'list', '--company', companyId, '--status', '404'], env);
    expect(table.stdout).toMatch(/AT +REQUEST +KEY +METHOD +ROUTE +STATUS +ERROR/);
    expect(table.stdout).toContain('/customers/{id}');
    expect(table.stdout).toContain('resource_not_found');
  });

  it('keys usage: requests and refusals per day over 30 days', async () => {
    const listed = await cli(['requests', 'list', '--company', companyId, '--key', String(key.id)]);
    const usage = await cli(['keys', 'usage', String(key.id)]);
    expect(usage).toMatchObject({ key_id: key.id, company_id: Number(companyId) });
    expect(usage.days).toHaveLength(30);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Maputo' }).format(new Date());
    expect(usage.days.at(-1)).toEqual({
      day: today,
      requests: listed.requests.length,
      refused: listed.requests.filter((request: Json) => request.status >= 400 && request.status < 500)
        .length,
      rate_limited: 0,
    });
    expect(usage.days.slice(0, -1).every((day: Json) => day.requests === 0)).toBe(true);
    expect(usage.totals).toEqual({
      requests: usage.days.at(-1).requests,
      refused: usage.days.at(-1).refused,
      rate_limited: 0,
    });
    const text = await runInProcess(['keys', 'usage', String(key.id)], env);
    expect(text.stdout).toMatch(/DAY +REQUESTS +REFUSED +RATE LIMITED/);
    expect(text.stdout).toContain(today);
  });

  it('keys roll (the real executable): a new key shown once works at once; the old one during its grace', async () => {
    const rolled = await runCli(['keys', 'roll', String(secondKey.id), '--grace', '2h', '--json'], env);
    expect(rolled.code, rolled.stderr).toBe(0);
    const result = JSON.parse(rolled.stdout);
    expect(result).toMatchObject({
      mode: 'live',
      scopes: ['customers:read'],
      company_id: Number(companyId),
      previous_key: { id: secondKey.id },
    });
    expect((Date.parse(result.previous_key.expires_at) - Date.now()) / 3_600_000).toBeCloseTo(2, 1);
    expect((await apiCall(server.apiBaseUrl, result.key, '/ping')).status).toBe(200);
    expect((await apiCall(server.apiBaseUrl, secondKey.key, '/ping')).status).toBe(200);
    const again = await runInProcess(['keys', 'roll', String(secondKey.id)], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `error: API key ${secondKey.id} was rolled already: its replacement is key ${result.id}\n`,
    );
    const text = await runInProcess(['keys', 'roll', String(result.id), '--grace', '30m'], env);
    expect(text.code).toBe(0);
    // issue 39, goal 8: a rolled key's message names its real validity: the new key's days (as
    // long as the old key was when issued), the old one's end, or that it ended now.
    const validity =
      /^API key \d+ rolled: new live API key (\d+) for company \d+, valid (\d+) days \(as long as key \d+ was when issued\)\.\n {2}key: +svc_sk_live_/.exec(
        text.stdout,
      );
    expect(validity, text.stdout).not.toBeNull();
    const keys = await cli(['keys', 'list', '--company', companyId]);
    const newest = keys.keys.find((each: Json) => each.id === Number(validity?.[1]));
    expect(Number(validity?.[2])).toBe(newest.days_left);
    expect(text.stdout).toContain(
      `Key ${result.id} keeps working until ${keys.keys.find((each: Json) => each.id === result.id).expires_at} (the end of its grace, or its own expiry if sooner); then it answers 401 api_key_expired.`,
    );
    // issue 30: its curl line names the running server (embedded: the command ran in it, through
    // the admin socket), or the configured PORT (PostgreSQL), never a fixed port 3000.
    const curlBase = /Try it: curl -H "Authorization: Bearer svc_sk_live_[^"]+" (\S+)\/ping/.exec(
      text.stdout,
    )?.[1];
    if (storage.kind === 'pglite') {
      expect(curlBase).toBe(server.apiBaseUrl);
    }
    // The audit trail names the key rolled, never a key.
    const audit = await cli(['audit', '--company', companyId, '--limit', '3']);
    const entry = audit.entries.find((each: Json) => each.command === 'keys roll');
    expect(entry).toMatchObject({ object_type: 'api_key', object_id: secondKey.id, outcome: 'ok' });
    expect(JSON.stringify(audit)).not.toContain('svc_sk_');
    if (storage.kind === 'postgres') {
      const newest = /new live API key (\d+)/.exec(text.stdout)?.[1] as string;
      const rolledAgain = await runInProcess(['keys', 'roll', newest], { ...env, PORT: '4567' });
      expect(rolledAgain.code, rolledAgain.stderr).toBe(0);
      expect(rolledAgain.stdout).toContain('http://127.0.0.1:4567/api/v1/partner/ping');
    }
    // --grace 0h: the rolled key ended now, and says so; a 9-day key's replacement is valid 9 days.
    const short = await cli(['keys', 'create', '--company', companyId, '--days', '9']);
    const ended = await runInProcess(['keys', 'roll', String(short.id), '--grace', '0h'], env);
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toMatch(/, valid 9 days \(as long as key \d+ was when issued\)\./);
    expect(ended.stdout).toContain(
      `Key ${short.id} expired now (no grace): it answers 401 api_key_expired on every server.`,
    );
    expect(ended.stdout).not.toContain('keeps working');
  });

  it('the last requests are written when the server stops (SIGTERM)', async () => {
    const last = await call(key.key, '/ping');
    expect(last.status).toBe(200);
    expect(await server.stop()).toBe(0);
    // The server is gone: the command opens the database itself.
    const result = await commandJson(['requests', 'show', last.requestId], env);
    expect(result.request).toMatchObject({ request_id: last.requestId, route: '/ping', status: 200 });
  });
});
