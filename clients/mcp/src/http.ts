// MCP over Streamable HTTP, at /mcp on a port of its own. Each MCP client sends its own Partner
// API key as a bearer token; the server has no key of its own and writes none anywhere.
// - initialize opens a session: the key answers /ping, and the session gets that key's client and
//   tools; the key stays in memory for the session's life only (closed by the client, or after
//   being idle), never on disk or in a log;
// - every later request of the session must carry the same key (compared by hash); another key,
//   or no session, answers 404 like a session that does not exist;
// - no key: 401; a request with an Origin header (a browser): 403, as the API itself does;
// - on a loopback address the Host header must name it (no DNS rebinding), checked first;
// - sessions are bounded per key, per company and in all (SessionLimits): a new session past a
//   bound closes the key's own oldest session first, then its company's oldest, so one company's
//   keys can never make another company's initialize answer 503; only a full server with no
//   session of that company left refuses it. A session that calls no tool within minutes is closed
//   (held sessions cost nothing to open otherwise), one that did after 30 idle minutes.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Log } from './log.js';
import { DEFAULT_SESSION_LIMITS, isLoopback, type SessionLimits } from './options.js';
import { type ToolError, toolError } from './render.js';
import { createMcpServer, openKeySession } from './server.js';

export const MCP_PATH = '/mcp';
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * headersTimeout 10 s (headers are a few hundred bytes); requestTimeout 300 s for a whole request
 * (up to 4 MiB of tool arguments), checked every second: as the service's own servers
 * (src/server-timeouts.ts of the service). A Server-Sent Events answer is not bounded by them.
 */
const SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 300_000,
  connectionsCheckingInterval: 1_000,
};

export interface HttpOptions {
  port: number;
  host: string;
  baseUrl: string;
  allowWrites: boolean;
  log: Log;
  /** Bounds of the sessions (DEFAULT_SESSION_LIMITS for any left out). */
  limits?: Partial<SessionLimits>;
}

export interface HttpMcpServer {
  /** e.g. http://127.0.0.1:8765/mcp */
  url: string;
  close(): Promise<void>;
}

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  keyHash: Buffer;
  /** The key's hash in hex, and its company (the key's own hash when /ping does not say). */
  keyId: string;
  company: string;
  openedAt: number;
  lastSeen: number;
  /** Whether the session has called a tool (else it is closed after limits.unusedMs). */
  calledTool: boolean;
}

/** Whether a JSON-RPC message (or batch) calls a tool. */
function callsTool(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) =>
      typeof message === 'object' &&
      message !== null &&
      (message as { method?: unknown }).method === 'tools/call',
  );
}

const hashOf = (key: string): Buffer => createHash('sha256').update(key).digest();

/** The key of `Authorization: Bearer <key>`, or null. */
function bearerKey(header: string | undefined): string | null {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

function answer(
  res: ServerResponse,
  status: number,
  message: string,
  options: { headers?: Record<string, string>; id?: unknown; data?: { error: ToolError } } = {},
): void {
  const body = {
    jsonrpc: '2.0',
    error: { code: -32000, message, ...(options.data ? { data: options.data } : {}) },
    id: options.id ?? null,
  };
  res.writeHead(status, { 'content-type': 'application/json', ...options.headers });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new SyntaxError('body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function startHttpServer(options: HttpOptions): Promise<HttpMcpServer> {
  const { log } = options;
  const sessions = new Map<string, Session>();
  const limits: SessionLimits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
  let allowedHosts: string[] | undefined;

  /** Forgets a session at once (so counts are right) and closes it. */
  function evict(id: string, why: string): void {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    log(`session closed: ${why}, ${sessions.size} open`);
    void session.server.close().catch(() => {});
  }

  /** The id of the least recently used session among `ids`. */
  function oldest(entries: [string, Session][]): string | undefined {
    let found: [string, Session] | undefined;
    for (const entry of entries) if (!found || entry[1].lastSeen < found[1].lastSeen) found = entry;
    return found?.[0];
  }

  /**
   * Makes room for one more session of this key and company: past a bound, the key's own oldest
   * session goes first, then the company's oldest. False only when the whole server is full and
   * holds no session of this company.
   */
  function makeRoom(keyId: string, company: string): boolean {
    const ofKey = () => [...sessions].filter(([, session]) => session.keyId === keyId);
    const ofCompany = () => [...sessions].filter(([, session]) => session.company === company);
    const ownFirst = () => oldest(ofKey()) ?? oldest(ofCompany());
    while (ofKey().length >= limits.sessionsPerKey)
      evict(oldest(ofKey())!, "the key's oldest, past its limit");
    while (ofCompany().length >= limits.sessionsPerCompany) {
      evict(ownFirst()!, "the company's oldest, past its limit");
    }
    while (sessions.size >= limits.maxSessions) {
      const victim = ownFirst();
      if (victim === undefined) return false;
      evict(victim, 'the oldest of its key or company, the server being full');
    }
    return true;
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      answer(res, 400, 'The body is not JSON (or is over 4 MiB).');
      return;
    }
    if (!isInitializeRequest(body)) {
      answer(res, 400, 'No session: the first request must be initialize (without Mcp-Session-Id).');
      return;
    }
    const id = (body as { id?: unknown }).id;
    let keySession: Awaited<ReturnType<typeof openKeySession>>;
    try {
      keySession = await openKeySession({
        apiKey: key,
        baseUrl: options.baseUrl,
        allowWrites: options.allowWrites,
        log,
      });
    } catch (error) {
      const failure = toolError(error);
      const answered = failure.http_status !== null && failure.http_status < 500;
      const lead = answered ? 'The Partner API refused this key' : 'The Partner API did not answer';
      log(`initialize refused: ${failure.code}`);
      answer(
        res,
        answered ? failure.http_status! : 502,
        `${lead}: ${failure.code}: ${failure.message}${failure.hint ? ` ${failure.hint}` : ''}`,
        { id, data: { error: failure } },
      );
      return;
    }
    const keyHash = hashOf(key);
    const keyId = keyHash.toString('hex');
    const company = keySession.identity ? `company ${keySession.identity.tenant_id}` : `key ${keyId}`;
    // The slot is taken now, synchronously, so concurrent initializes of one key count each other.
    if (!makeRoom(keyId, company)) {
      answer(res, 503, 'Too many open sessions: try again later.', { id, headers: { 'retry-after': '30' } });
      return;
    }
    const server = createMcpServer(keySession, log);
    const sessionId = randomUUID();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: () => {
        const who = keySession.identity
          ? `company id ${keySession.identity.tenant_id} (${keySession.identity.mode})`
          : 'a key without customers:read';
        log(`session opened for ${who}: ${keySession.grant.tools.length} tools, ${sessions.size} open`);
      },
    });
    const now = Date.now();
    sessions.set(sessionId, {
      server,
      transport,
      keyHash,
      keyId,
      company,
      openedAt: now,
      lastSeen: now,
      calledTool: false,
    });
    transport.onclose = () => {
      if (sessions.delete(sessionId)) log(`session closed, ${sessions.size} open`);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize the transport refused opened nothing.
      if (transport.sessionId === undefined && sessions.delete(sessionId))
        void server.close().catch(() => {});
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://mcp.local');
    if (pathname !== MCP_PATH) {
      answer(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
      return;
    }
    // DNS rebinding: on loopback, a Host naming anything but this address is a page's trick.
    if (allowedHosts && !allowedHosts.includes(req.headers.host ?? '')) {
      answer(res, 403, 'Wrong Host header: this server answers only to its own loopback address.');
      return;
    }
    if (req.headers.origin !== undefined) {
      answer(res, 403, 'Browser requests are refused: use this server from an MCP client, never a web page.');
      return;
    }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      answer(res, 405, 'Method not allowed.', { headers: { allow: 'GET, POST, DELETE' } });
      return;
    }
    const key = bearerKey(req.headers.authorization);
    if (key === null) {
      answer(
        res,
        401,
        'Missing API key: send your company\'s Partner API key as the header "Authorization: Bearer svc_sk_live_..." (or svc_sk_test_...).',
        { headers: { 'www-authenticate': 'Bearer realm="partner-mcp"' } },
      );
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId !== 'string') {
      if (req.method !== 'POST') {
        answer(res, 400, 'No session: POST an initialize request first.');
        return;
      }
      await openSession(req, res, key);
      return;
    }
    const session = sessions.get(sessionId);
    // A session of another key answers exactly like a missing one.
    if (!session || !timingSafeEqual(session.keyHash, hashOf(key))) {
      answer(res, 404, 'Session not found: start a new one with initialize.');
      return;
    }
    session.lastSeen = Date.now();
    if (req.method !== 'POST') {
      await session.transport.handleRequest(req, res);
      return;
    }
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      answer(res, 400, 'The body is not JSON (or is over 4 MiB).');
      return;
    }
    if (callsTool(body)) session.calledTool = true;
    await session.transport.handleRequest(req, res, body);
  }

  const httpServer: Server = createServer(SERVER_TIMEOUTS, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`request failed: ${error instanceof Error ? error.name : 'error'}`);
      if (!res.headersSent) answer(res, 500, 'Internal error.');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, options.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  if (isLoopback(options.host)) {
    allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  }

  // Looked at often enough that a session never outlives its bound by more than a quarter of it.
  const sweepMs = Math.max(250, Math.min(60_000, Math.floor(Math.min(limits.unusedMs, limits.idleMs) / 4)));
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (!session.calledTool && now - session.openedAt >= limits.unusedMs) {
        evict(id, `no tool called in ${Math.round(limits.unusedMs / 1000)} s`);
      } else if (now - session.lastSeen >= limits.idleMs) {
        evict(id, `idle for ${Math.round(limits.idleMs / 1000)} s`);
      }
    }
  }, sweepMs);
  sweeper.unref();

  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((session) => session.server.close()));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
