// Retries of the TypeScript client against a real server, through a recording proxy: a write
// whose answer is lost is resent with the same key and bytes and creates one record; 5xx and
// timeouts back off base, 2x, 4x, 8x and give up after maxRetries (the default budget of 60 s of
// waits: test/clients/retry-budget.unit.test.ts); Retry-After is waited; a 409
// in flight waits and retries; a 429 from a low limit is waited out.
import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type PaceInfo,
  PartnerApi,
  PartnerApiError,
  PartnerApiNetworkError,
  type PartnerApiOptions,
  type RetryInfo,
  responseOf,
} from '../../clients/typescript/src/index.js';
import { API_PREFIX } from '../../src/app.js';
import { customers, idempotencyKeys, invoices } from '../../src/db/schema.js';
import { type ListeningApp, RecordingProxy, startListeningApp } from '../helpers/client-server.js';
import { type MovableClock, movableClock } from '../helpers/clock.js';
import { createTenant, type Tenant } from '../helpers/context.js';

const BASE_DELAY_MS = 20;

/** The backoff waits: each a random wait between half of and the whole base x 1, 2, 4, 8 (jitter). */
function expectBackoff(retries: RetryInfo[], multiples: number[]): void {
  expect(retries.map((r) => r.attempt)).toEqual(multiples.map((_, i) => i + 1));
  retries.forEach((retry, i) => {
    const ceiling = multiples[i]! * BASE_DELAY_MS;
    expect(retry.delayMs, `wait before attempt ${i + 2}`).toBeGreaterThanOrEqual(ceiling / 2);
    expect(retry.delayMs, `wait before attempt ${i + 2}`).toBeLessThanOrEqual(ceiling);
  });
}

async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (reason: unknown) => reason,
  );
}

describe('TypeScript client: retries through a proxy', () => {
  let server: ListeningApp;
  let tenant: Tenant;
  let proxy: RecordingProxy;
  let retries: RetryInfo[];

  function clientVia(baseUrl: string, options: Partial<PartnerApiOptions> = {}): PartnerApi {
    return new PartnerApi({
      apiKey: tenant.key,
      baseUrl,
      retryBaseDelayMs: BASE_DELAY_MS,
      onRetry: (info) => retries.push(info),
      ...options,
    });
  }

  beforeAll(async () => {
    server = await startListeningApp();
    tenant = await createTenant(server.db, { name: 'Rede Instável, Lda' });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    proxy = await RecordingProxy.start(server.origin);
    retries = [];
  });
  afterEach(() => proxy.close());

  it('a POST whose answer is lost is resent with the same key and bytes, and creates one customer', async () => {
    proxy.plan = (request) =>
      request.method === 'POST' && proxy.of('POST').length === 1
        ? { kind: 'lose-response' }
        : { kind: 'forward' };
    const client = clientVia(proxy.baseUrl);
    const created = await client.customers.create({
      name: 'Resposta Perdida',
      email: 'perdida@exemplo.co.mz',
    });

    const posts = proxy.of('POST');
    expect(posts.map((p) => [p.action, p.upstreamStatus])).toEqual([
      ['lose-response', 201],
      ['forward', 201],
    ]);
    expect(posts[1]?.body.equals(posts[0]!.body)).toBe(true);
    expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
    expect(responseOf(created)).toMatchObject({ status: 201, replayed: true, attempts: 2 });
    expect(retries).toHaveLength(1);
    expect(retries[0]?.error).toBeInstanceOf(PartnerApiNetworkError);
    expectBackoff(retries, [1]);
    expect(retries[0]?.idempotencyKey).toBe(posts[0]?.headers['idempotency-key']);

    const rows = await server.db.select().from(customers).where(eq(customers.name, 'Resposta Perdida'));
    expect(rows.map((row) => row.id)).toEqual([created.id]);
  });

  it('an invoice whose answer is lost twice is created exactly once', async () => {
    const direct = clientVia(server.baseUrl);
    const customer = await direct.customers.create({ name: 'Cliente Uma Vez' });
    const product = await direct.products.create({
      name: 'Serviço Uma Vez',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: '10.00',
    });
    proxy.plan = (request) =>
      request.method === 'POST' && proxy.of('POST').length <= 2
        ? { kind: 'lose-response' }
        : { kind: 'forward' };
    const client = clientVia(proxy.baseUrl);
    const invoice = await client.invoices.create({
      customer_id: customer.id,
      invoice_date: '2026-03-01',
      items: [{ product_id: product.id, quantity: 2, price: '2500.55' }],
    });
    expect(invoice.grand_total).toBe('5001.10');
    const posts = proxy.of('POST');
    expect(posts).toHaveLength(3);
    expect(new Set(posts.map((p) => p.body.toString('utf8'))).size).toBe(1);
    expect(new Set(posts.map((p) => p.headers['idempotency-key'])).size).toBe(1);
    expectBackoff(retries, [1, 2]);
    const rows = await server.db.select().from(invoices).where(eq(invoices.customerId, customer.id));
    expect(rows.map((row) => row.id)).toEqual([invoice.id]);
  });

  it('5xx: retried with base, 2x, 4x, 8x (each with jitter); with maxRetries 4 the fifth failure is thrown', async () => {
    proxy.plan = () => ({ kind: 'answer', status: 502 });
    const client = clientVia(proxy.baseUrl, { maxRetries: 4 });
    const error = await rejection(client.ping());
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ status: 502, code: null, attempts: 5 });
    expect(proxy.requests).toHaveLength(5);
    expectBackoff(retries, [1, 2, 4, 8]);
  });

  it('the backoff is jittered: clients failing together do not retry together', async () => {
    proxy.plan = () => ({ kind: 'answer', status: 502 });
    const waits: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, () =>
        rejection(
          clientVia(proxy.baseUrl, {
            maxRetries: 1,
            retryBaseDelayMs: 1000,
            onRetry: (info) => waits.push(info.delayMs),
          }).ping(),
        ),
      ),
    );
    expect(waits).toHaveLength(8);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(500);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(1000);
    expect(new Set(waits).size).toBeGreaterThan(1);
  });

  it('5xx on a write: every attempt has the same key and bytes; the one that passes creates it', async () => {
    proxy.plan = (_request, index) => (index < 2 ? { kind: 'answer', status: 503 } : { kind: 'forward' });
    const client = clientVia(proxy.baseUrl, { maxRetries: 2 });
    const product = await client.products.create({
      name: 'Depois de Dois 503',
      type: 'GOODS',
      inventory: 'INVENTORY',
      price: '7.25',
    });
    expect(product.price).toBe('7.25');
    const posts = proxy.of('POST');
    expect(posts.map((p) => p.action)).toEqual(['answer', 'answer', 'forward']);
    expect(new Set(posts.map((p) => p.body.toString('utf8')))).toEqual(
      new Set(['{"name":"Depois de Dois 503","type":"GOODS","inventory":"INVENTORY","price":7.25}']),
    );
    expect(new Set(posts.map((p) => p.headers['idempotency-key'])).size).toBe(1);
    expect(responseOf(product)).toMatchObject({ status: 201, replayed: false, attempts: 3 });
  });

  it('maxRetries bounds the attempts; Retry-After on a 503 is waited instead of the backoff', async () => {
    proxy.plan = () => ({ kind: 'answer', status: 503, headers: { 'retry-after': '1' } });
    const client = clientVia(proxy.baseUrl, { maxRetries: 1 });
    expect(await rejection(client.ping())).toMatchObject({ status: 503, attempts: 2 });
    expect(proxy.requests).toHaveLength(2);
    expect(retries.map((r) => r.delayMs)).toEqual([1000]);
  });

  it('a timeout is a network error, retried; after the last attempt it is thrown as such', async () => {
    proxy.plan = (_request, index) => (index === 0 ? { kind: 'hang' } : { kind: 'forward' });
    const client = clientVia(proxy.baseUrl, { timeoutMs: 300 });
    expect(await client.ping()).toMatchObject({ tenant_id: tenant.companyId });
    expect(retries).toHaveLength(1);
    expect(retries[0]?.error).toMatchObject({ name: 'PartnerApiNetworkError', timedOut: true });

    retries = [];
    proxy.plan = () => ({ kind: 'hang' });
    const error = await rejection(clientVia(proxy.baseUrl, { timeoutMs: 200, maxRetries: 1 }).ping());
    expect(error).toBeInstanceOf(PartnerApiNetworkError);
    expect(error).not.toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ timedOut: true, attempts: 2 });
  });

  it("the caller's own abort ends the call at once, never retried", async () => {
    proxy.plan = () => ({ kind: 'hang' });
    const controller = new AbortController();
    const call = clientVia(proxy.baseUrl).customers.list({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(call);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(retries).toEqual([]);
    expect(proxy.requests).toHaveLength(1);
  });

  it('a refused connection is a network error after 5 attempts with maxRetries 4', async () => {
    const closed = await RecordingProxy.start(server.origin);
    const url = closed.baseUrl;
    await closed.close();
    const error = await rejection(clientVia(url, { maxRetries: 4 }).ping());
    expect(error).toBeInstanceOf(PartnerApiNetworkError);
    expect(error).toMatchObject({ timedOut: false, attempts: 5 });
    expectBackoff(retries, [1, 2, 4, 8]);
  });

  it('409 idempotency_request_in_flight: waits its Retry-After and retries with the same key', async () => {
    const key = `in-flight-${Date.now()}-1`;
    const body = '{"name":"Em Curso"}';
    // A claim as a request still running (or a crashed one) leaves it.
    await server.db.insert(idempotencyKeys).values({
      apiKeyId: tenant.apiKey.id,
      companyId: tenant.companyId,
      key,
      requestHash: createHash('sha256').update(`POST ${API_PREFIX}/customers\n`).update(body).digest('hex'),
      state: 'in_flight',
      holder: 'another-process',
      expiresAt: sql`now() + interval '24 hours'`,
    });
    // While the client waits, the claim's holder is found dead: the next attempt takes it over.
    const released: Promise<unknown>[] = [];
    const client = clientVia(proxy.baseUrl, {
      onRetry: (info) => {
        retries.push(info);
        released.push(
          server.db
            .update(idempotencyKeys)
            .set({ lockedAt: sql`now() - interval '10 minutes'` })
            .where(eq(idempotencyKeys.key, key))
            .execute(),
        );
      },
    });
    const created = await client.customers.create({ name: 'Em Curso' }, { idempotencyKey: key });
    await Promise.all(released);
    expect(created.name).toBe('Em Curso');
    expect(retries).toHaveLength(1);
    expect(retries[0]?.error).toMatchObject({ status: 409, code: 'idempotency_request_in_flight' });
    expect(retries[0]?.delayMs).toBe(2000);
    const posts = proxy.of('POST');
    expect(
      posts.map((p) => [p.upstreamStatus, p.body.toString('utf8'), p.headers['idempotency-key']]),
    ).toEqual([
      [409, body, key],
      [201, body, key],
    ]);
  });
});

describe('TypeScript client: a 429 of a low limit is waited out (memory limits, controlled clock)', () => {
  let server: ListeningApp;
  let tenant: Tenant;

  beforeAll(async () => {
    server = await startListeningApp({ RATE_LIMIT_KEY_PER_MINUTE: '3' });
    tenant = await createTenant(server.db, { name: 'Limite Baixo, Lda' });
  });
  afterAll(() => server.close());
  // The pacing tests move the server's clock on at the real rate (helpers/clock.ts): the client
  // waits the real seconds the server announces, and must find the window reset when it goes.
  let clock: MovableClock | null = null;
  afterEach(() => {
    vi.useRealTimers();
    clock?.restore();
    clock = null;
  });

  it('waits Retry-After, then the retry passes in the next window', async () => {
    // The test moves the server's clock to about 2 s before the end of the minute window that
    // the first ping opened, so the wait is a second or two instead of up to sixty.
    clock = movableClock();
    const first = new PartnerApi({ apiKey: tenant.key, baseUrl: server.baseUrl });
    const remaining: (number | null | undefined)[] = [];
    remaining.push(responseOf(await first.ping())?.rateLimit?.remaining);
    const opened = Date.now();
    for (let i = 0; i < 2; i++) remaining.push(responseOf(await first.ping())?.rateLimit?.remaining);
    expect(remaining).toEqual([2, 1, 0]);
    clock.advance(opened + 58_000 - Date.now());

    // Another process with the same key knows nothing of the spent budget: it meets the 429.
    const retries: RetryInfo[] = [];
    const other = new PartnerApi({
      apiKey: tenant.key,
      baseUrl: server.baseUrl,
      retryBaseDelayMs: BASE_DELAY_MS,
      onRetry: (info) => retries.push(info),
    });
    const ping = await other.ping();
    expect(ping.tenant_id).toBe(tenant.companyId);
    expect(retries).toHaveLength(1);
    const [retry] = retries;
    expect(retry?.error).toBeInstanceOf(PartnerApiError);
    expect(retry?.error).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      rateLimit: { limit: 3, remaining: 0 },
    });
    // The window ends about 2 s after the jump, less the time the 429 took.
    const retryAfter = (retry!.error as PartnerApiError).rateLimit?.retryAfterSeconds;
    expect([1, 2]).toContain(retryAfter);
    expect(retry?.delayMs).toBe((retryAfter ?? 0) * 1000);
    expect(responseOf(ping)).toMatchObject({
      status: 200,
      attempts: 2,
      rateLimit: { limit: 3, remaining: 2, retryAfterSeconds: null },
    });
  });

  it('pacing: a client that knows the limit is spent waits for its window instead of meeting a 429', async () => {
    clock = movableClock();
    const paced = await createTenant(server.db, { name: 'Ritmo Certo, Lda' });
    const statuses: number[] = [];
    const paces: PaceInfo[] = [];
    const client = new PartnerApi({
      apiKey: paced.key,
      baseUrl: server.baseUrl,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        statuses.push(response.status);
        return response;
      },
      onPace: (info) => paces.push(info),
    });
    await client.ping();
    const opened = Date.now();
    await client.ping();
    // Near the end of the window, so that its reset (the wait) is two or three seconds away.
    clock.advance(opened + 57_500 - Date.now());
    expect(responseOf(await client.ping())?.rateLimit?.remaining).toBe(0);
    expect(client.rateLimits()).toContainEqual(
      expect.objectContaining({ name: 'key-minute', quota: 3, windowSeconds: 60, remaining: 0 }),
    );
    const started = performance.now();
    const fourth = await client.ping();
    expect(fourth.tenant_id).toBe(paced.companyId);
    expect(paces).toEqual([{ kind: 'read', limit: 'key-minute', delayMs: expect.any(Number) }]);
    expect(paces[0]!.delayMs).toBeGreaterThan(0);
    expect(paces[0]!.delayMs).toBeLessThanOrEqual(3000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(paces[0]!.delayMs - 100);
    expect(statuses).toEqual([200, 200, 200, 200]);
  });

  it('pacing: concurrent calls share what the client knows, and none meets a 429', async () => {
    clock = movableClock();
    const paced = await createTenant(server.db, { name: 'Ritmo Partilhado, Lda' });
    const statuses: number[] = [];
    const client = new PartnerApi({
      apiKey: paced.key,
      baseUrl: server.baseUrl,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        statuses.push(response.status);
        return response;
      },
    });
    await client.ping(); // opens the window; two requests left in it
    clock.advance(57_000);
    const pings = await Promise.all(Array.from({ length: 5 }, () => client.ping()));
    expect(pings.map((ping) => ping.tenant_id)).toEqual(Array(5).fill(paced.companyId));
    expect(statuses).toHaveLength(6);
    expect(statuses.every((status) => status === 200)).toBe(true);
  });

  it('a Retry-After longer than maxRetryWaitMs ends the call with the 429', async () => {
    const retries: RetryInfo[] = [];
    const client = new PartnerApi({
      apiKey: tenant.key,
      baseUrl: server.baseUrl,
      maxRetryWaitMs: 500,
      onRetry: (info) => retries.push(info),
    });
    let error: unknown = null;
    for (let i = 0; i < 4 && error === null; i++)
      error = await client.ping().then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', attempts: 1 });
    expect((error as PartnerApiError).rateLimit?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retries).toEqual([]);
  });
});
