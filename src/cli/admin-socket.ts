// The admin socket: while `serve` runs on the embedded PGlite database, it alone may open that
// database, so the CLI asks the server to run its operations. A small HTTP server on a unix socket
// (mode 0600, in DATA_DIR), separate from the API app; it runs the same operation functions
// (src/operations/index.ts) on the server's own database handle and answers their JSON.
//
//   POST /operations/<name>   body: the operation's arguments (JSON object); header
//                             X-Invoicing-Actor: who runs it, for the audit trail
//   200 {"result": ...}  |  422 {"error": {"kind": "operation" | "argument", "message"}}
//   404 {"error": {"kind": "unknown_operation", ...}}  |  500 {"error": {"kind": "internal", ...}}
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ArgumentError, OperationError } from '../operations/errors.js';
import { SERVER_TIMEOUT_OPTIONS } from '../server-timeouts.js';

/** Unix socket paths are limited to about 107 bytes; a deep DATA_DIR gets one in the temp dir. */
const MAX_SOCKET_PATH = 100;
const MAX_BODY_BYTES = 1024 * 1024;

export function adminSocketPath(dataDir: string): string {
  const dir = resolve(dataDir);
  const inside = join(dir, 'admin.sock');
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const digest = createHash('sha256').update(dir).digest('hex').slice(0, 16);
  return join(tmpdir(), `invoicing-${digest}.sock`);
}

export interface AdminLogger {
  error(object: unknown, message: string): void;
}

export type OperationRunner = (name: string, args: unknown, actor: string) => Promise<unknown>;

const ACTOR_HEADER = 'x-invoicing-actor';

export interface AdminServer {
  path: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new OperationError('request too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Listens on the admin socket. The caller must hold the DATA_DIR lock: a socket file left by a
 * dead server is removed first.
 */
export async function startAdminServer(
  dataDir: string,
  runOperation: OperationRunner,
  log: AdminLogger,
  /** The API's base URL as the server listens: a command's curl examples use it, not its own PORT. */
  apiBaseUrl: string,
): Promise<AdminServer> {
  const path = adminSocketPath(dataDir);
  const server: Server = createServer(SERVER_TIMEOUT_OPTIONS, async (req, res) => {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    const match = /^\/operations\/([a-z][a-z0-9.-]*)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match?.[1]) {
      send(404, { error: { kind: 'not_found', message: 'unknown admin route' } });
      return;
    }
    try {
      const raw = await readBody(req);
      let args: unknown;
      try {
        args = raw === '' ? {} : JSON.parse(raw);
      } catch {
        throw new OperationError('the arguments are not valid JSON');
      }
      const header = req.headers[ACTOR_HEADER];
      const actor = typeof header === 'string' && header !== '' ? decodeURIComponent(header) : 'unknown';
      const result = await runOperation(match[1], args, actor);
      send(200, { result, api_base_url: apiBaseUrl });
    } catch (error) {
      if (error instanceof OperationError) {
        const kind = error instanceof ArgumentError ? 'argument' : 'operation';
        send(422, { error: { kind, message: error.message } });
        return;
      }
      const reference = `adm_${randomBytes(6).toString('hex')}`;
      log.error({ err: error, operation: match[1], reference }, 'admin operation failed');
      send(500, {
        error: {
          kind: 'internal',
          message: `the operation failed on the server (see its log, ${reference})`,
        },
      });
    }
  });
  unlinkIfPresent(path);
  // The socket is created with the process umask: make it private from the start, then chmod anyway.
  const previousUmask = process.umask(0o177);
  try {
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolvePromise();
      });
    });
  } finally {
    process.umask(previousUmask);
  }
  chmodSync(path, 0o600);
  let closing: Promise<void> | null = null;
  return {
    path,
    close() {
      closing ??= new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeIdleConnections();
      }).then(() => unlinkIfPresent(path));
      return closing;
    },
  };
}

/** No server listens on the socket: the caller may open the database itself (after taking the lock). */
export class NoServer extends Error {}

/**
 * Runs an operation through a running server. Rejects with `NoServer` only when the connection
 * could not be made (nothing was sent), so falling back to the database is always safe.
 */
export function callAdminServer(
  dataDir: string,
  name: string,
  args: unknown,
  actor: string,
): Promise<{ result: unknown; apiBaseUrl: string | undefined }> {
  const path = adminSocketPath(dataDir);
  const body = JSON.stringify(args);
  return new Promise((resolvePromise, reject) => {
    let connected = false;
    const req = httpRequest(
      {
        socketPath: path,
        agent: false, // a fresh connection: 'connect' below tells whether anything was sent
        method: 'POST',
        path: `/operations/${name}`,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          [ACTOR_HEADER]: encodeURIComponent(actor),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          let parsed: {
            result?: unknown;
            api_base_url?: unknown;
            error?: { kind?: string; message?: string };
          };
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            reject(new Error('the server answered something that is not JSON'));
            return;
          }
          if (res.statusCode === 200) {
            const apiBaseUrl = typeof parsed.api_base_url === 'string' ? parsed.api_base_url : undefined;
            resolvePromise({ result: parsed.result, apiBaseUrl });
          } else if (parsed.error?.kind === 'argument') {
            reject(new ArgumentError(parsed.error.message ?? 'bad argument'));
          } else if (parsed.error?.kind === 'operation') {
            reject(new OperationError(parsed.error.message ?? 'refused'));
          } else {
            reject(new AdminServerFailure(parsed.error?.message ?? `the server answered ${res.statusCode}`));
          }
        });
      },
    );
    req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) {
        reject(new NoServer(error.message));
      } else if (connected) {
        reject(
          new AdminServerFailure(
            'the server closed the connection before answering; the operation may or may not have been applied',
          ),
        );
      } else {
        reject(error);
      }
    });
    req.end(body);
  });
}

/** The server could not run the operation for an internal reason; its log has the details. */
export class AdminServerFailure extends Error {}
