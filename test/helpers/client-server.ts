// For the client tests: the app listening on a real port (buildApp, current storage), and a
// recording HTTP proxy in front of it that can lose an answer on the way back, answer as a
// failing gateway, or never answer.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { API_PREFIX } from '../../src/app.js';
import { startTestApp, type TestContext } from './context.js';

export interface ListeningApp extends TestContext {
  /** Base address of the API, ending in /api/v1/partner. */
  baseUrl: string;
  /** Origin of the server, e.g. http://127.0.0.1:41234. */
  origin: string;
}

/** A test app (fresh database of the current storage) listening on a free port of 127.0.0.1. */
export async function startListeningApp(env: Record<string, string> = {}): Promise<ListeningApp> {
  const ctx = await startTestApp(env);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ctx.app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return { ...ctx, origin, baseUrl: `${origin}${API_PREFIX}` };
}

/** A request as the proxy received it, body byte for byte. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. /api/v1/partner/customers?page=1. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** What the proxy did with it. */
  action: ProxyAction['kind'];
  /** Status the server answered (null when the request never reached it or no answer came). */
  upstreamStatus: number | null;
  /** The Content-Encoding of the server's answer (null: none, or no answer). */
  upstreamEncoding: string | null;
}

export type ProxyAction =
  /** Pass the request on and its answer back. */
  | { kind: 'forward' }
  /** Pass the request on, wait for the server's whole answer, then drop the client's connection. */
  | { kind: 'lose-response' }
  /** Answer this itself, as a failing gateway would; the server never sees the request. */
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string }
  /** Never answer (the client's timeout must end it). */
  | { kind: 'hang' };

const FORWARD: ProxyAction = { kind: 'forward' };
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']);

export class RecordingProxy {
  readonly requests: RecordedRequest[] = [];
  /** Decides what happens to each request (index counts from 0); forwards by default. */
  plan: (request: RecordedRequest, index: number) => ProxyAction = () => FORWARD;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private upstream!: URL;

  private constructor() {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch(() => res.socket?.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(upstreamOrigin: string): Promise<RecordingProxy> {
    const proxy = new RecordingProxy();
    proxy.upstream = new URL(upstreamOrigin);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** Base address of the API through the proxy. */
  get baseUrl(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${API_PREFIX}`;
  }

  /** Requests whose method is the one given. */
  of(method: string): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks),
      action: 'forward',
      upstreamStatus: null,
      upstreamEncoding: null,
    };
    const index = this.requests.push(recorded) - 1;
    const action = this.plan(recorded, index);
    recorded.action = action.kind;
    if (action.kind === 'hang') return;
    if (action.kind === 'answer') {
      res.writeHead(action.status, { 'content-type': 'text/plain', ...action.headers });
      res.end(action.body ?? `gateway answered ${action.status}`);
      return;
    }
    const answer = await this.forward(recorded);
    recorded.upstreamStatus = answer.status;
    const encoding = answer.headers['content-encoding'];
    recorded.upstreamEncoding = typeof encoding === 'string' ? encoding : null;
    if (action.kind === 'lose-response') {
      // The server has answered (and committed); the answer never reaches the client.
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
    res.end(answer.body);
  }

  private forward(
    request: RecordedRequest,
  ): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers.host = this.upstream.host;
    return new Promise((resolve, reject) => {
      const upstream = http.request(
        {
          host: this.upstream.hostname,
          port: this.upstream.port,
          method: request.method,
          path: request.url,
          headers,
          agent: false,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('error', reject);
          answer.on('end', () => {
            const out: Record<string, string | string[]> = {};
            for (const [name, value] of Object.entries(answer.headers)) {
              if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'content-length')
                out[name] = value;
            }
            resolve({ status: answer.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
          });
        },
      );
      upstream.on('error', reject);
      upstream.end(request.body);
    });
  }
}
