// Tracing through real server processes (the SDK starts before the server's modules load), with
// an OTLP/HTTP receiver in this test speaking the protocol: http/json on PGlite, http/protobuf on
// PostgreSQL. decisions.md "Tracing": off unless the standard OTEL_* variables name an exporter,
// then configured only by them; a caller's `traceparent` is continued; a webhook delivery carries
// the `traceparent` of the trace of the write that caused its event; the request log and the log
// lines keep the trace id; nothing exported holds a key, a secret or a body.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PartnerApi, responseOf } from '../../clients/typescript/src/index.js';
import { runInProcess } from '../helpers/cli.js';
import { createEmptyPostgresDatabase, migratedDataDir, testStorage } from '../helpers/database.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { TEST_REDIS_URL } from '../helpers/services.js';
import { type Receiver, startReceiver, verified } from '../helpers/webhook-receiver.js';

/** Bounded waits for conditions (polled): a loaded machine is slower, never wrong. */
const PATIENCE_MS = 60_000;
const TIMEOUT_MS = 4 * PATIENCE_MS;

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON of the command line
async function cli(args: string[], env: Record<string, string>): Promise<any> {
  const result = await runInProcess([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** A database of this test's own, and the server's environment for it. */
async function storageEnv(): Promise<Record<string, string>> {
  if (testStorage() === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'tracing-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return { DATA_DIR: await migratedDataDir(join(dir, 'data')) };
  }
  const database = await createEmptyPostgresDatabase(inject('postgresTemplate'));
  cleanups.push(() => database.drop());
  return { DATABASE_URL: database.url };
}

/** A company with the API on, a live key and a webhook endpoint at `url` (operator commands). */
async function company(env: Record<string, string>, url: string) {
  const created = await cli(['companies', 'create', '--name', 'Empresa Rastreada'], env);
  await cli(['companies', 'enable-api', String(created.id)], env);
  const key = await cli(['keys', 'create', '--company', String(created.id)], env);
  const endpoint = await cli(
    ['webhooks', 'create', '--company', String(created.id), '--url', url, '--events', 'customer.created'],
    env,
  );
  return {
    companyId: created.id as number,
    key: key.key as string,
    keyId: key.id as number,
    secret: endpoint.secret as string,
  };
}

function newTraceparent(): { traceparent: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

/** Whether `span` descends from `ancestor` within the received spans. */
function descendsFrom(span: ReceivedSpan, ancestor: ReceivedSpan, spans: ReceivedSpan[]): boolean {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  let current: ReceivedSpan | undefined = span;
  for (let hops = 0; current && hops < 20; hops++) {
    if (current.parentSpanId === ancestor.spanId) return true;
    current = byId.get(current.parentSpanId);
  }
  return false;
}

/** The request log's record of a request, once its batch is written (every second). */
async function loggedRequest(env: Record<string, string>, requestId: string) {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const result = await runInProcess(['requests', 'show', requestId, '--json'], env);
    if (result.code === 0) return JSON.parse(result.stdout).request;
    if (Date.now() > deadline)
      throw new Error(`request ${requestId} not in the request log: ${result.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('tracing on: OTLP/HTTP to a receiver', () => {
  const protocol = testStorage() === 'pglite' ? 'http/json' : 'http/protobuf';
  let otlp: OtlpReceiver;
  let webhooks: Receiver;
  let server: ServerProcess;
  let env: Record<string, string>;
  let opsUrl: string;
  let account: Awaited<ReturnType<typeof company>>;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    cleanups.push(() => otlp.close());
    webhooks = await startReceiver();
    cleanups.push(() => webhooks.close());
    webhooks.on('/hook', () => ({ status: 200 }));
    env = {
      ...(await storageEnv()),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `tracing-test:${randomBytes(6).toString('hex')}`,
      WEBHOOK_ALLOW_HTTP: 'true',
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'invoicing-test',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '1',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // The banner's English is read below.
      INVOICING_LANG: 'en',
    };
    server = await startServerProcess(env);
    cleanups.push(() => server.kill('SIGKILL'));
    opsUrl = /Operations: (http:\/\/[^/\s]+)\/healthz/.exec(server.output())?.[1] as string;
    expect(opsUrl).toBeTruthy();
    account = await company(env, webhooks.url('/hook'));
  }, TIMEOUT_MS);

  it("continues a caller's traceparent: the server span, named by route, is its child, with authentication, rate limiting (Redis) and database statements under it", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const caller = newTraceparent();
    // Made without a trace: the read below is the only request of `caller`'s trace.
    const made = await fetch(`${server.baseUrl}/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${account.key}`,
        'content-type': 'application/json',
        'idempotency-key': `tracing-read-${randomBytes(4).toString('hex')}`,
      },
      body: JSON.stringify({ name: 'Cliente Lido' }),
    });
    expect(made.status).toBe(201);
    const id = (await made.json()).data.id as number;
    const res = await fetch(`${server.baseUrl}/customers/${id}`, {
      headers: { authorization: `Bearer ${account.key}`, traceparent: caller.traceparent },
    });
    expect(res.status).toBe(200);
    const inTrace = () => otlp.spans.filter((span) => span.traceId === caller.traceId);
    await otlp.waitFor(
      () => inTrace().some((span) => span.name === 'response'),
      PATIENCE_MS,
      "the read's spans",
    );
    const spans = inTrace();
    const root = spans.find((span) => span.parentSpanId === caller.parentId);
    expect(root?.name).toBe('GET /api/v1/partner/customers/:id');
    expect(root?.kind).toBe(2); // SERVER
    expect(root?.attributes).toMatchObject({
      'http.route': '/api/v1/partner/customers/:id',
      'http.response.status_code': 200,
      'invoicing.company_id': account.companyId,
      'invoicing.api_key_id': account.keyId,
      'invoicing.request_id': res.headers.get('x-request-id'),
    });
    expect(root?.resource).toMatchObject({ 'service.name': 'invoicing-test' });
    expect(root?.resource['service.version']).toMatch(/^\d+\.\d+\.\d+/);
    expect(root?.resource['service.instance.id']).toBeTruthy();
    const child = (name: string) =>
      spans.find((span) => span.name === name && span.parentSpanId === root?.spanId);
    expect(child('authentication')).toBeDefined();
    const limiting = child('rate limiting');
    expect(limiting).toBeDefined();
    const redis = spans.filter((span) => span.attributes['db.system.name'] === 'redis');
    expect(redis.some((span) => span.parentSpanId === limiting?.spanId)).toBe(true);
    expect(child('response')).toBeDefined();
    // Each statement a span: the pg instrumentation's on PostgreSQL, the service's own on PGlite.
    const statements = spans.filter(
      (span) =>
        span.attributes['db.system.name'] === 'postgresql' || span.attributes['db.system'] === 'postgresql',
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements)
      expect(descendsFrom(statement, root as ReceivedSpan, spans)).toBe(true);
    const texts = statements.map((span) =>
      String(span.attributes['db.query.text'] ?? span.attributes['db.statement']),
    );
    expect(texts.some((text) => /from "customers"/i.test(text))).toBe(true);
    expect(
      otlp.contentTypes.every((type) =>
        type.startsWith(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'),
      ),
    ).toBe(true);
  });

  it("the official TypeScript client's traceContext is continued: the API's server span is a child of the integrator's span", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const caller = newTraceparent();
    const client = new PartnerApi({
      apiKey: account.key,
      baseUrl: server.baseUrl,
      traceContext: () => ({ traceparent: caller.traceparent, tracestate: 'parceiro=1' }),
    });
    const ping = await client.ping();
    const inTrace = () => otlp.spans.filter((span) => span.traceId === caller.traceId);
    await otlp.waitFor(
      () => inTrace().some((span) => span.parentSpanId === caller.parentId),
      PATIENCE_MS,
      "the client's request in its trace",
    );
    const root = inTrace().find((span) => span.parentSpanId === caller.parentId);
    expect(root).toMatchObject({ name: 'GET /api/v1/partner/ping', kind: 2 });
    expect(root?.attributes).toMatchObject({
      'invoicing.company_id': account.companyId,
      'invoicing.request_id': responseOf(ping)?.requestId,
    });
  });

  it("a write's webhook delivery carries the write's traceparent, and its attempt is a span of that trace", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const caller = newTraceparent();
    const name = `Cliente Secreto ${randomBytes(4).toString('hex')}`;
    const res = await fetch(`${server.baseUrl}/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${account.key}`,
        'content-type': 'application/json',
        'idempotency-key': `tracing-write-${randomBytes(4).toString('hex')}`,
        traceparent: caller.traceparent,
      },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(201);
    const customerId = (await res.json()).data.id as number;
    await webhooks.waitFor(
      (requests) => requests.some((request) => verified(request, account.secret).data?.id === customerId),
      PATIENCE_MS,
      'the delivery of customer.created',
    );
    const delivery = webhooks
      .at('/hook')
      .find((request) => verified(request, account.secret).data?.id === customerId);
    const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(delivery?.headers.traceparent ?? '');
    expect(sent?.[1]).toBe(caller.traceId);
    await otlp.waitFor(
      (spans) =>
        spans.some((span) => span.traceId === caller.traceId && span.name === 'webhook delivery attempt'),
      PATIENCE_MS,
      'the attempt span',
    );
    const spans = otlp.spans.filter((span) => span.traceId === caller.traceId);
    const root = spans.find((span) => span.parentSpanId === caller.parentId);
    expect(root?.name).toBe('POST /api/v1/partner/customers');
    expect(
      spans.some((span) => span.name === 'idempotency claim' && span.parentSpanId === root?.spanId),
    ).toBe(true);
    const attempt = spans.find((span) => span.name === 'webhook delivery attempt');
    expect(attempt?.spanId).toBe(sent?.[2]); // the receiver's parent is the attempt
    expect(descendsFrom(attempt as ReceivedSpan, root as ReceivedSpan, spans)).toBe(true);
    expect(attempt?.attributes).toMatchObject({
      'invoicing.webhook.event_type': 'customer.created',
      'http.response.status_code': 200,
    });
  });

  it('the request log and the log lines name the trace id (`requests show`)', {
    timeout: TIMEOUT_MS,
  }, async () => {
    const caller = newTraceparent();
    const res = await fetch(`${server.baseUrl}/ping`, {
      headers: { authorization: `Bearer ${account.key}`, traceparent: caller.traceparent },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') as string;
    const logged = await loggedRequest(env, requestId);
    expect(logged.trace_id).toBe(caller.traceId);
    const text = await runInProcess(['requests', 'show', requestId], env);
    expect(text.stdout).toContain(caller.traceId);
    // A partner's request found by its trace: the trace id of the traceparent it sent.
    const byTrace = await runInProcess(['requests', 'show', caller.traceId, '--json'], env);
    expect(JSON.parse(byTrace.stdout).request.request_id).toBe(requestId);
    const line = server
      .output()
      .split('\n')
      .find((each) => each.includes(requestId) && each.includes('request completed'));
    expect(JSON.parse(line as string)).toMatchObject({
      trace_id: caller.traceId,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  it('the latency histogram carries exemplars when /metrics is scraped as OpenMetrics', {
    timeout: TIMEOUT_MS,
  }, async () => {
    const caller = newTraceparent();
    const res = await fetch(`${server.baseUrl}/ping`, {
      headers: { authorization: `Bearer ${account.key}`, traceparent: caller.traceparent },
    });
    expect(res.status).toBe(200);
    const open = await fetch(`${opsUrl}/metrics`, {
      headers: { accept: 'application/openmetrics-text; version=1.0.0; charset=utf-8' },
    });
    expect(open.headers.get('content-type')).toContain('application/openmetrics-text');
    const text = await open.text();
    const exemplar = text
      .split('\n')
      .find(
        (line) =>
          line.startsWith('invoicing_http_request_duration_seconds_bucket{') && line.includes(caller.traceId),
      );
    expect(exemplar).toMatch(/ # \{trace_id="[0-9a-f]{32}",span_id="[0-9a-f]{16}"\} [0-9.e-]+ [0-9.]+$/);
    expect(text.endsWith('# EOF\n')).toBe(true);
    expect(text).toMatch(/^invoicing_http_requests_total\{/m);
    // Prometheus text, as before: no exemplar, counters keep their `_total`.
    const plain = await (await fetch(`${opsUrl}/metrics`)).text();
    expect(plain).not.toContain('trace_id');
    expect(plain).toMatch(/^# TYPE invoicing_http_requests_total counter$/m);
  });

  it('no export holds a key (also one in a query string), an Authorization header, a webhook secret or a body', {
    timeout: TIMEOUT_MS,
  }, async () => {
    const caller = newTraceparent();
    const res = await fetch(`${server.baseUrl}/customers?api_key=${account.key}`, {
      headers: { authorization: `Bearer ${account.key}`, traceparent: caller.traceparent },
    });
    expect(res.status).toBe(422);
    await otlp.waitFor(
      (spans) => spans.some((span) => span.traceId === caller.traceId && span.name === 'response'),
      PATIENCE_MS,
      'the spans of the request with a key in its query',
    );
    const root = otlp.spans.find(
      (span) => span.traceId === caller.traceId && span.parentSpanId === caller.parentId,
    );
    expect(root?.attributes['url.path']).toBe('/api/v1/partner/customers');
    const everything = otlp.bodies.join('\n');
    expect(otlp.bodies.length).toBeGreaterThan(0);
    expect(everything).not.toContain(account.key);
    expect(everything).not.toContain(account.key.slice(12)); // the key's secret part alone
    expect(everything).not.toContain(account.secret);
    expect(everything).not.toContain(account.secret.slice(6));
    expect(everything).not.toMatch(/Bearer/);
    expect(everything.toLowerCase()).not.toContain('authorization');
    expect(everything).not.toContain('Cliente Secreto');
    expect(everything).not.toContain('Cliente Lido');
  });
});

describe('tracing off', () => {
  it('nothing is sent, and nothing names a trace, when OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_TRACES_EXPORTER are unset', {
    timeout: TIMEOUT_MS,
  }, async () => {
    const otlp = await startOtlpReceiver();
    cleanups.push(() => otlp.close());
    const env = {
      ...(await storageEnv()),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      // Everything but the variables that turn it on: a started SDK would send here.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'invoicing-test-off',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const server = await startServerProcess(env);
    cleanups.push(() => server.kill('SIGKILL'));
    const created = await cli(['companies', 'create', '--name', 'Empresa Sem Rastreio'], env);
    await cli(['companies', 'enable-api', String(created.id)], env);
    const key = (await cli(['keys', 'create', '--company', String(created.id)], env)).key as string;
    const caller = newTraceparent();
    const res = await fetch(`${server.baseUrl}/ping`, {
      headers: { authorization: `Bearer ${key}`, traceparent: caller.traceparent },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') as string;
    // The request log's batch is written a second later: by then a started SDK had sent its spans.
    expect((await loggedRequest(env, requestId)).trace_id).toBeNull();
    expect(otlp.bodies).toEqual([]);
    expect(server.output()).not.toContain('trace_id');
    expect(server.output()).toContain('"tracing":"off"');
  });
});
