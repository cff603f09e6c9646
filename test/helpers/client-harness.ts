// What the PHP and Python clients' tests (clients/php/tests/Server, clients/python/tests/server) run
// against, on the current test project's storage, driven over HTTP by a control server so that a
// test in any language can set up what it needs:
// - the real server: `bin/invoicing serve` (webhook worker included) on a fresh database, with
//   recording proxies in front that can lose an answer, answer as a failing gateway, or hang;
// - a second server with low rate limits (3 requests, 2 writes a minute per key), in this process
//   so that its clock can be moved on: a test jumps to the end of a minute window instead of
//   waiting for it (the clients wait the real seconds the server announces);
// - a webhook receiver that records the real deliveries of the server;
// - the operator's command line (`bin/invoicing ... --json`) on the same database.
//
// Control routes (JSON in and out):
//   GET  /config                         the addresses below
//   POST /tenants {name, target?, mode?} a company with the partner API on and a key: {company_id, key}
//                                        (target "main", default, through the command line; "limited")
//   POST /cli {args}                     bin/invoicing ARGS --json on the main server's database
//   POST /webhooks {company_id}          an endpoint of the company at the receiver: {id, secret}
//   GET  /webhooks/deliveries?company_id=ID   what the receiver got for it: [{headers, body}]
//   POST /proxy/NAME/plan {rules}        NAME main|limited; each rule {action, method?, times?, status?,
//                                        headers?, body?} applies to the next matching requests
//   GET  /proxy/NAME/requests            [{method, url, headers, body, action, upstream_status,
//                                        upstream_encoding}]
//   POST /proxy/NAME/reset               forgets requests and rules
//   POST /clock {advance_ms}             moves the limited server's clock on
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cliJson, createCliStorage, startServe } from './cli.js';
import { type ListeningApp, type ProxyAction, RecordingProxy, startListeningApp } from './client-server.js';
import { movableClock } from './clock.js';
import { createTenant } from './context.js';
import { type Receiver, startReceiver } from './webhook-receiver.js';

/** Limits of the limited server: small enough for a test to meet them. */
export const LIMITED = { RATE_LIMIT_KEY_PER_MINUTE: '3', RATE_LIMIT_KEY_WRITES_PER_MINUTE: '2' };

export interface ClientHarness {
  /** Environment for a client's test process: the addresses of everything above. */
  env: Record<string, string>;
  close(): Promise<void>;
}

interface Rule {
  action: ProxyAction['kind'];
  method?: string;
  times?: number;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function planned(proxy: RecordingProxy, rules: Rule[]): void {
  proxy.plan = (request) => {
    const rule = rules.find(
      (candidate) =>
        (candidate.times ?? 1) > 0 &&
        (!candidate.method || candidate.method.toUpperCase() === request.method),
    );
    if (!rule) return { kind: 'forward' };
    rule.times = (rule.times ?? 1) - 1;
    if (rule.action === 'answer') {
      return {
        kind: 'answer',
        status: rule.status ?? 502,
        ...(rule.headers ? { headers: rule.headers } : {}),
        ...(rule.body !== undefined ? { body: rule.body } : {}),
      };
    }
    return { kind: rule.action };
  };
}

export async function startClientHarness(): Promise<ClientHarness> {
  const storage = await createCliStorage();
  const cliEnv = { ...storage.env, WEBHOOK_ALLOW_HTTP: 'true' };
  const cleanups: (() => Promise<unknown>)[] = [() => storage.close()];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const serve = await startServe(cliEnv);
    cleanups.push(() => serve.stop());
    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const mainProxy = await RecordingProxy.start(serve.url);
    cleanups.push(() => mainProxy.close());
    const clock = movableClock();
    cleanups.push(async () => clock.restore());
    const limited: ListeningApp = await startListeningApp(LIMITED);
    cleanups.push(() => limited.close());
    const limitedProxy = await RecordingProxy.start(limited.origin);
    cleanups.push(() => limitedProxy.close());
    const proxies: Record<string, RecordingProxy> = { main: mainProxy, limited: limitedProxy };

    const cli = <T = Record<string, unknown>>(args: string[]) => cliJson<T>(args, cliEnv);
    const config: Record<string, unknown> = {
      api_url: serve.apiBaseUrl,
      proxy_url: mainProxy.baseUrl,
      limited_url: limited.baseUrl,
      limited_proxy_url: limitedProxy.baseUrl,
      limits: { key_per_minute: 3, key_writes_per_minute: 2 },
    };
    const routes = async (method: string, path: string, request: IncomingMessage): Promise<unknown> => {
      const url = new URL(path, 'http://harness.local');
      if (method === 'GET' && url.pathname === '/config') return config;
      if (method === 'POST' && url.pathname === '/tenants') {
        const body = await readJson(request);
        const name = String(body.name ?? 'Empresa de Teste, Lda');
        const mode = body.mode === 'test' ? 'test' : 'live';
        if (body.target === 'limited') {
          const tenant = await createTenant(limited.db, { name, mode });
          return { company_id: tenant.companyId, key: tenant.key };
        }
        const company = await cli<{ id: number }>(['companies', 'create', '--name', name]);
        await cli(['companies', 'enable-api', String(company.id)]);
        const key = await cli<{ key: string }>([
          'keys',
          'create',
          '--company',
          String(company.id),
          '--mode',
          mode,
        ]);
        return { company_id: company.id, key: key.key };
      }
      if (method === 'POST' && url.pathname === '/cli') {
        const body = await readJson(request);
        if (!Array.isArray(body.args)) throw new HttpError(400, 'args: a list of strings');
        return cli(body.args.map(String));
      }
      if (method === 'POST' && url.pathname === '/webhooks') {
        const body = await readJson(request);
        const company = String(body.company_id);
        return cli([
          'webhooks',
          'create',
          '--company',
          company,
          '--url',
          receiver.url(`/companies/${company}`),
        ]);
      }
      if (method === 'GET' && url.pathname === '/webhooks/deliveries') {
        const company = url.searchParams.get('company_id');
        return receiver.at(`/companies/${company}`).map(({ headers, body }) => ({ headers, body }));
      }
      if (method === 'POST' && url.pathname === '/clock') {
        const body = await readJson(request);
        clock.advance(Number(body.advance_ms ?? 0));
        return { now: new Date().toISOString() };
      }
      const proxyRoute = /^\/proxy\/(main|limited)\/(plan|requests|reset)$/.exec(url.pathname);
      if (proxyRoute) {
        const proxy = proxies[proxyRoute[1]!]!;
        if (method === 'GET' && proxyRoute[2] === 'requests') {
          return proxy.requests.map((recorded) => ({
            method: recorded.method,
            url: recorded.url,
            headers: recorded.headers,
            body: recorded.body.toString('utf8'),
            action: recorded.action,
            upstream_status: recorded.upstreamStatus,
            upstream_encoding: recorded.upstreamEncoding,
          }));
        }
        if (method === 'POST' && proxyRoute[2] === 'plan') {
          const body = await readJson(request);
          planned(proxy, (body.rules ?? []) as Rule[]);
          return { ok: true };
        }
        if (method === 'POST' && proxyRoute[2] === 'reset') {
          proxy.requests.length = 0;
          proxy.plan = () => ({ kind: 'forward' });
          return { ok: true };
        }
      }
      throw new HttpError(404, `no control route ${method} ${url.pathname}`);
    };

    const control: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
      routes(request.method ?? 'GET', request.url ?? '/', request).then(
        (result) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(result));
        },
        (error: unknown) => {
          response.writeHead(error instanceof HttpError ? error.status : 500, {
            'content-type': 'text/plain',
          });
          response.end(error instanceof Error ? error.message : String(error));
        },
      );
    });
    await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          control.closeAllConnections();
          control.close(() => resolve());
        }),
    );
    const harnessUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
    config.harness_url = harnessUrl;
    return {
      env: {
        PARTNER_HARNESS_URL: harnessUrl,
        PARTNER_API_URL: serve.apiBaseUrl,
        PARTNER_PROXY_URL: mainProxy.baseUrl,
        PARTNER_LIMITED_URL: limited.baseUrl,
        PARTNER_LIMITED_PROXY_URL: limitedProxy.baseUrl,
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The environment of a client's test process: no proxy of the machine in the way of 127.0.0.1. */
export function childEnv(harness: ClientHarness, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...harness.env, ...extra };
  for (const name of ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'])
    delete env[name];
  env.NO_PROXY = '127.0.0.1,localhost';
  env.no_proxy = '127.0.0.1,localhost';
  return env;
}
