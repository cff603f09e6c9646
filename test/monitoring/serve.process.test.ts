// The real `serve` with OPS_PORT: the monitoring server next to the API, and its logs: one line
// per request, short human lines (LOG_FORMAT=pretty, or a terminal) or JSON lines otherwise.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  apiCall,
  type CliStorage,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';

interface Ready {
  ops_url: string;
  demo: { live_key: { key: string } } | null;
}

describe(`serve with an operations port (${testStorage()})`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let storage: CliStorage;
  let server: ServeProcess | null = null;
  let key: string;

  beforeAll(async () => {
    storage = await createCliStorage();
  });
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
  });

  it('serves /healthz, /readyz and /metrics on 127.0.0.1; human log lines, one per request', async () => {
    server = await startServe(
      { ...storage.env, OPS_PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' },
      { args: ['--demo'] },
    );
    const ready = server.ready as unknown as Ready;
    key = ready.demo?.live_key.key as string;
    expect(ready.ops_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${ready.ops_url}/healthz`)).status).toBe(200);
    const readyz = await fetch(`${ready.ops_url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toMatchObject({ status: 'ready' });

    for (let i = 0; i < 2; i++) expect((await apiCall(server.apiBaseUrl, key, '/ping')).status).toBe(200);
    expect((await apiCall(server.apiBaseUrl, 'svc_sk_live_nope', '/customers')).status).toBe(401);
    // The API itself has no such route.
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);

    const metrics = await (await fetch(`${ready.ops_url}/metrics`)).text();
    expect(metrics).toContain(
      'invoicing_http_requests_total{route="/api/v1/partner/ping",method="GET",status="200",error_code=""} 2',
    );
    expect(metrics).toContain(
      'invoicing_http_requests_total{route="/api/v1/partner/customers",method="GET",status="401",error_code="invalid_api_key"} 1',
    );

    // Logs are written without blocking: wait for the three lines to reach stderr (bounded).
    const requestLinesOf = (stderr: string) =>
      stderr.split('\n').filter((line) => line.includes('/api/v1/partner/'));
    const output = server;
    await vi.waitFor(() => expect(requestLinesOf(output.stderr()).length).toBeGreaterThanOrEqual(3), {
      timeout: 30_000,
      interval: 50,
    });
    const requestLines = requestLinesOf(server.stderr());
    expect(requestLines).toHaveLength(3); // two pings and the 401 (the 404 for /metrics is outside the prefix)
    for (const line of requestLines.slice(0, 2)) {
      expect(line).toMatch(
        /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/api\/v1\/partner\/ping 200 [\d.]+ms .*"reqId":"req_/,
      );
    }
    expect(requestLines[2]).toMatch(
      /INFO: GET \/api\/v1\/partner\/customers 401 [\d.]+ms .*"errorCode":"invalid_api_key"/,
    );
    expect(server.stderr()).not.toContain('"level":');
    expect(server.stderr()).not.toContain('incoming request');
    expect(server.stderr()).not.toContain(key);
    expect(await server.stop()).toBe(0);
    server = null;
  });

  it('JSON lines when not on a terminal: one per request, never the key', async () => {
    server = await startServe({ ...storage.env, LOG_LEVEL: 'info' });
    expect(server.ready).toMatchObject({ ops_url: null });
    expect((await apiCall(server.apiBaseUrl, key, '/ping')).status).toBe(200);
    const entriesOf = (stderr: string) =>
      stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const pings = (stderr: string) =>
      entriesOf(stderr).filter((entry) => entry.url === '/api/v1/partner/ping');
    // Logs are written without blocking: wait for the line to reach stderr (bounded).
    const output = server;
    await vi.waitFor(() => expect(pings(output.stderr()).length).toBeGreaterThan(0), {
      timeout: 30_000,
      interval: 50,
    });
    const entries = entriesOf(server.stderr());
    const requests = pings(server.stderr());
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'GET',
      statusCode: 200,
      reqId: expect.stringMatching(/^req_/),
      api_key_id: expect.any(Number),
      responseTime: expect.any(Number),
    });
    expect(entries.some((entry) => entry.msg === 'incoming request')).toBe(false);
    expect(server.stderr()).not.toContain(key);
  });
});
