// The three clients' transports at two edges, against real HTTP servers of this test (node:http):
// - issue 38: a redirect is never followed (the Authorization header would go to the address the
//   redirect names): an API address that answers 302 or 307 to another origin, whose server records
//   every request it gets, makes the call fail naming where it pointed, and that server gets nothing;
// - issue 39 goal 8: an uncaught PartnerApiError (PHP's PartnerApiException) shows the API's hint in
//   its message, so that the till's log says what to do.
// - issue 41: the trace context an integrator gives a client is sent as the W3C headers, validated.
// TypeScript in this process; Python and PHP as programs (PYTHON_BIN, PHP_BIN pick others).
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PartnerApi, PartnerApiError, type TraceContext } from '../../../clients/typescript/src/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PYTHON = process.env.PYTHON_BIN ?? 'python3';
const PHP = process.env.PHP_BIN ?? 'php';
const KEY = 'svc_sk_live_redirectiontestkey0000000000000000';
const MESSAGE = 'Cliente não encontrado.';
const HINT = 'Verifique o identificador; só são visíveis os recursos da empresa da chave.';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        PYTHONDONTWRITEBYTECODE: '1',
        NO_PROXY: '127.0.0.1',
        no_proxy: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const python = (source: string) => run(PYTHON, ['-c', source], { PYTHONPATH: `${ROOT}clients/python` });
const php = (source: string) => run(PHP, ['-r', `require '${ROOT}clients/php/autoload.php';\n${source}`]);

describe('the clients at the edges of their transport, against real HTTP servers', () => {
  let elsewhere: Server;
  let elsewhereUrl: string;
  const reached: IncomingMessage['headers'][] = [];
  let api: Server;
  let baseUrl: string;

  beforeAll(async () => {
    // Another origin (another port): whatever reaches it is recorded.
    elsewhere = createServer((request, response) => {
      reached.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"data":{"id":1}}');
    });
    elsewhereUrl = await listen(elsewhere);
    api = createServer((request, response) => {
      const path = request.url ?? '/';
      request.resume();
      if (path.endsWith('/ping')) {
        response.writeHead(302, { location: `${elsewhereUrl}${path}` });
        response.end();
      } else if (request.method === 'POST' && path.endsWith('/customers')) {
        response.writeHead(307, { location: `${elsewhereUrl}${path}` });
        response.end();
      } else {
        response.writeHead(404, { 'content-type': 'application/json', 'x-request-id': 'req_dica' });
        response.end(
          JSON.stringify({
            error: { code: 'resource_not_found', message: MESSAGE, hint: HINT, request_id: 'req_dica' },
          }),
        );
      }
    });
    baseUrl = `${await listen(api)}/api/v1/partner`;
  });
  afterAll(async () => {
    for (const server of [api, elsewhere]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('issue 38, TypeScript: a redirect to another origin is not followed; the call fails naming it, the key never leaves', async () => {
    const client = new PartnerApi({ apiKey: KEY, baseUrl, maxRetries: 0 });
    const ping = await client.ping().catch((error: unknown) => error);
    expect(ping).toBeInstanceOf(PartnerApiError);
    expect(ping).toMatchObject({ status: 302, code: null });
    expect((ping as Error).message).toContain(`redirected to ${elsewhereUrl}/api/v1/partner/ping`);
    const created = await client.customers
      .create({ name: 'Redireccionado' })
      .catch((error: unknown) => error);
    expect(created).toMatchObject({ status: 307 });
    expect(reached).toEqual([]);
  });

  it('issue 38, Python: never follows a redirect, with its own opener or one of the caller', async () => {
    const result = await python(`
import urllib.request
from invoicing_partner_api import PartnerApi, PartnerApiError
for opener in (None, urllib.request.build_opener()):
    client = PartnerApi("${KEY}", "${baseUrl}", max_retries=0, opener=opener)
    for call in (client.ping, lambda: client.customers.create({"name": "Redireccionado"})):
        try:
            call()
            print("followed")
        except PartnerApiError as error:
            print(error.status, error)
`);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain(
      `302 HTTP 302: GET /ping was redirected to ${elsewhereUrl}/api/v1/partner/ping`,
    );
    expect(lines[1]).toMatch(/^307 HTTP 307: POST \/customers was redirected/);
    expect(lines[2]).toMatch(/^302 /);
    expect(lines[3]).toMatch(/^307 /);
    expect(reached).toEqual([]);
  });

  it('issue 38, PHP: never follows a redirect (as before), and says where it pointed', async () => {
    const result = await php(`
$client = new Invoicing\\PartnerApi\\PartnerApi('${KEY}', '${baseUrl}', maxRetries: 0);
foreach ([fn () => $client->ping(), fn () => $client->customers->create(['name' => 'Redireccionado'])] as $call) {
    try {
        $call();
        echo "followed\\n";
    } catch (Invoicing\\PartnerApi\\PartnerApiException $error) {
        echo $error->status, ' ', $error->getMessage(), "\\n";
    }
}
`);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toContain(
      `302 HTTP 302: GET /ping was redirected to ${elsewhereUrl}/api/v1/partner/ping`,
    );
    expect(lines[1]).toMatch(/^307 HTTP 307: POST \/customers was redirected/);
    expect(reached).toEqual([]);
  });

  it("issue 39 goal 8, TypeScript: the error's message carries the hint; apiMessage and hint apart", async () => {
    const client = new PartnerApi({ apiKey: KEY, baseUrl, maxRetries: 0 });
    const error = await client.customers.get(999).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ message: `${MESSAGE} ${HINT}`, apiMessage: MESSAGE, hint: HINT });
    // Uncaught, in a program of its own: what the till's log shows.
    const uncaught = await run(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { PartnerApi } from '${ROOT}clients/typescript/src/index.ts';
await new PartnerApi({ apiKey: '${KEY}', baseUrl: '${baseUrl}', maxRetries: 0 }).customers.get(999);`,
    ]);
    expect(uncaught.code).not.toBe(0);
    expect(uncaught.stderr).toContain(`PartnerApiError: ${MESSAGE} ${HINT}`);
  });

  it('issue 39 goal 8, Python: an uncaught PartnerApiError shows the hint; .message is the API message alone', async () => {
    const caught = await python(`
from invoicing_partner_api import PartnerApi, PartnerApiError
try:
    PartnerApi("${KEY}", "${baseUrl}", max_retries=0).customers.get(999)
except PartnerApiError as error:
    print(error.message)
    print(error.hint)
`);
    expect(caught.stdout.trim().split('\n')).toEqual([MESSAGE, HINT]);
    const uncaught = await python(`
from invoicing_partner_api import PartnerApi
PartnerApi("${KEY}", "${baseUrl}", max_retries=0).customers.get(999)
`);
    expect(uncaught.code).toBe(1);
    expect(uncaught.stderr).toContain(`PartnerApiError: ${MESSAGE} ${HINT}`);
  });

  it('issue 39 goal 8, PHP: an uncaught PartnerApiException shows the hint; apiMessage is the API message alone', async () => {
    const caught = await php(`
try {
    (new Invoicing\\PartnerApi\\PartnerApi('${KEY}', '${baseUrl}', maxRetries: 0))->customers->get(999);
} catch (Invoicing\\PartnerApi\\PartnerApiException $error) {
    echo $error->apiMessage, "\\n", $error->hint, "\\n";
}
`);
    expect(caught.stdout.trim().split('\n')).toEqual([MESSAGE, HINT]);
    const uncaught = await php(
      `(new Invoicing\\PartnerApi\\PartnerApi('${KEY}', '${baseUrl}', maxRetries: 0))->customers->get(999);`,
    );
    expect(uncaught.code).toBe(255);
    expect(uncaught.stderr + uncaught.stdout).toContain(`PartnerApiException: ${MESSAGE} ${HINT}`);
  });
});

// Issue 41: the official clients pass on the trace context an integrator who traces gives them
// (a hook asked once per call): the W3C `traceparent` and `tracestate` headers arrive as given, on
// every attempt of the call; a malformed value is not sent, and never makes the call fail.
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TRACE_SCENARIOS: { given: unknown; sent: Record<string, string> }[] = [
  {
    given: { traceparent: TRACEPARENT, tracestate: 'vendor=1,outro=dois' },
    sent: { traceparent: TRACEPARENT, tracestate: 'vendor=1,outro=dois' },
  },
  { given: { traceparent: TRACEPARENT }, sent: { traceparent: TRACEPARENT } },
  { given: { traceparent: 'nope', tracestate: 'vendor=1' }, sent: {} },
  { given: { traceparent: TRACEPARENT.toUpperCase() }, sent: {} },
  { given: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }, sent: {} },
  { given: { traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01` }, sent: {} },
  { given: { traceparent: `ff-${TRACEPARENT.slice(3)}` }, sent: {} },
  { given: { traceparent: `${TRACEPARENT}-extra` }, sent: {} },
  // A tracestate that would break the header (or inject another) is left out; the traceparent goes.
  {
    given: { traceparent: TRACEPARENT, tracestate: 'vendor=1\r\nx-injected: 1' },
    sent: { traceparent: TRACEPARENT },
  },
  {
    given: { traceparent: TRACEPARENT, tracestate: 'v='.padEnd(513, 'x') },
    sent: { traceparent: TRACEPARENT },
  },
  { given: { traceparent: 42 }, sent: {} },
  { given: null, sent: {} },
  { given: 'throw', sent: {} },
];
// Each scenario: one ping. Then, with the first: a write, and a read answered 503 once (its two
// attempts carry the same context, asked once).
const TRACE_EXPECTED = [
  ...TRACE_SCENARIOS.map((scenario) => scenario.sent),
  TRACE_SCENARIOS[0]!.sent,
  TRACE_SCENARIOS[0]!.sent,
  TRACE_SCENARIOS[0]!.sent,
];

describe('issue 41: the clients send the traceparent and tracestate they are given (a server that records headers)', () => {
  let server: Server;
  let baseUrl: string;
  let received: IncomingMessage['headers'][] = [];
  let asked = 0;
  let retried = false;

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      received.push(request.headers);
      if (request.url?.endsWith('/customers/retry') && !retried) {
        retried = true;
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
        response.end('{"error":{"code":"service_unavailable","message":"Indisponível."}}');
        return;
      }
      response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      response.end('{"data":{"id":1}}');
    });
    baseUrl = `${await listen(server)}/api/v1/partner`;
  });
  beforeEach(() => {
    received = [];
    asked = 0;
    retried = false;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function sent() {
    expect(received.some((headers) => 'x-injected' in headers)).toBe(false);
    return received.map((headers) => ({
      ...(headers.traceparent !== undefined ? { traceparent: headers.traceparent } : {}),
      ...(headers.tracestate !== undefined ? { tracestate: headers.tracestate } : {}),
    }));
  }

  it('TypeScript: traceContext', async () => {
    let given: unknown = null;
    const client = new PartnerApi({
      apiKey: KEY,
      baseUrl,
      maxRetries: 1,
      retryBaseDelayMs: 1,
      traceContext: () => {
        asked++;
        if (given === 'throw') throw new Error('no tracer');
        return given as TraceContext;
      },
    });
    for (const scenario of TRACE_SCENARIOS) {
      given = scenario.given;
      await client.ping();
    }
    given = TRACE_SCENARIOS[0]!.given;
    await client.customers.create({ name: 'Rastreado' });
    await client.customers.get('retry');
    expect(sent()).toEqual(TRACE_EXPECTED);
    expect(asked).toBe(TRACE_SCENARIOS.length + 2);
  });

  it('Python: trace_context', async () => {
    const result = await run(
      PYTHON,
      [
        '-c',
        `
import json, os
from invoicing_partner_api import PartnerApi
scenarios = json.loads(os.environ["SCENARIOS"])
state = {"given": None, "asked": 0}
def hook():
    state["asked"] += 1
    if state["given"] == "throw":
        raise RuntimeError("no tracer")
    return state["given"]
client = PartnerApi("${KEY}", "${baseUrl}", max_retries=1, retry_base_delay=0.001, trace_context=hook)
for scenario in scenarios:
    state["given"] = scenario["given"]
    client.ping()
state["given"] = scenarios[0]["given"]
client.customers.create({"name": "Rastreado"})
client.customers.get("retry")
print(state["asked"])
`,
      ],
      { PYTHONPATH: `${ROOT}clients/python`, SCENARIOS: JSON.stringify(TRACE_SCENARIOS) },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(sent()).toEqual(TRACE_EXPECTED);
    expect(Number(result.stdout.trim())).toBe(TRACE_SCENARIOS.length + 2);
  });

  it('PHP: traceContext', async () => {
    const result = await run(
      PHP,
      [
        '-r',
        `require '${ROOT}clients/php/autoload.php';
$scenarios = json_decode(getenv('SCENARIOS'), true);
$given = null;
$asked = 0;
$client = new Invoicing\\PartnerApi\\PartnerApi('${KEY}', '${baseUrl}', maxRetries: 1, retryBaseDelay: 0.001,
    traceContext: function () use (&$given, &$asked) {
        $asked++;
        if ($given === 'throw') {
            throw new RuntimeException('no tracer');
        }
        return $given;
    });
foreach ($scenarios as $scenario) {
    $given = $scenario['given'];
    $client->ping();
}
$given = $scenarios[0]['given'];
$client->customers->create(['name' => 'Rastreado']);
$client->customers->get('retry');
echo $asked, "\\n";
`,
      ],
      { SCENARIOS: JSON.stringify(TRACE_SCENARIOS) },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(sent()).toEqual(TRACE_EXPECTED);
    expect(Number(result.stdout.trim())).toBe(TRACE_SCENARIOS.length + 2);
  });
});
