// The admin socket: while `serve` runs on the embedded PGlite database, it alone may open that
// database, so the CLI asks the server to run its operations. A small HTTP server on a unix socket
// (mode 0600, in DATA_DIR), separate from the API app; it runs the same operation functions
// (src/operations/index.ts) on the server's own database handle and answers their JSON.
//
//   POST /operations/<name>   body: the operation's arguments (JSON object); header
//                             X-Invoicing-Actor: who runs it, for the audit trail
//   200 {"result": ...}  |  422 {"error": {"kind": "operation" | "argument", "message"}}
//   404 {"error": {"kind": "unknown_operation", ...}}  |  500 {"error": {"kind": "internal", ...}}
//
// Where it lives: never in a shared directory (another local user could answer there). In order:
// 1. DATA_DIR/admin.sock, when the path fits a unix socket (DATA_DIR is the service's own, 0700);
// 2. for a deep DATA_DIR, `invoicing-<hash of DATA_DIR>.sock` in the first private runtime
//    directory whose path fits: $RUNTIME_DIRECTORY (systemd's RuntimeDirectory=invoicing, i.e.
//    /run/invoicing), then $XDG_RUNTIME_DIR; private means a directory of this user's that no one
//    else may write to. DATA_DIR/admin-socket.path (0600) then names it for the commands, which
//    run without the service's environment;
// 3. otherwise `serve` refuses to start, saying why.
// A command trusts a socket only if it is a socket of the service's user (this process's, or the
// owner of DATA_DIR) with no permission for anyone else, in a directory no one else may write to.

import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { isTextKey } from '../i18n/catalog.js';
import type { Message, MessageParams } from '../i18n/message.js';
import { ArgumentError, OperationError } from '../operations/errors.js';
import { SERVER_TIMEOUT_OPTIONS } from '../server-timeouts.js';
import { StartRefused } from './preflight.js';

/** Unix socket paths are limited to about 107 bytes (kept below, for every platform). */
const MAX_SOCKET_PATH = 100;
const MAX_BODY_BYTES = 1024 * 1024;
/** In DATA_DIR: the socket's path, when it is not DATA_DIR/admin.sock. */
export const SOCKET_POINTER = 'admin-socket.path';

const fits = (path: string) => Buffer.byteLength(path) <= MAX_SOCKET_PATH;

/** DATA_DIR/admin.sock, or null when that path is too long for a unix socket. */
function insideDataDir(dataDir: string): string | null {
  const inside = join(resolve(dataDir), 'admin.sock');
  return fits(inside) ? inside : null;
}

/** A directory of this user's that no one else may write to (nor replace a file in). */
function isPrivateDirectory(dir: string): boolean {
  try {
    const info = lstatSync(dir);
    const uid = process.getuid?.();
    return info.isDirectory() && (uid === undefined || info.uid === uid) && (info.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Where `serve` puts its admin socket (see the top of this file); refuses with a clear message
 * when no private place fits.
 */
export function adminSocketPath(
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const inside = insideDataDir(dataDir);
  if (inside) return inside;
  const dir = resolve(dataDir);
  const name = `invoicing-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.sock`;
  const candidates = [env.RUNTIME_DIRECTORY?.split(':')[0], env.XDG_RUNTIME_DIR].filter(
    (candidate): candidate is string => candidate?.startsWith('/') === true,
  );
  for (const candidate of candidates) {
    const path = join(candidate, name);
    if (fits(path) && isPrivateDirectory(candidate)) return path;
  }
  throw new StartRefused({
    key: 'start.socket_too_deep',
    params: { dir, path: join(dir, 'admin.sock'), max: MAX_SOCKET_PATH },
  });
}

/** A socket a command may not trust: whoever made it is not the service. */
export class UntrustedSocket extends OperationError {}

/**
 * The socket a command should talk to, checked: null when there is none (no server runs).
 * Throws UntrustedSocket when it exists but is not the service's own.
 */
function trustedSocketPath(dataDir: string): string | null {
  let path = insideDataDir(dataDir);
  if (!path) {
    try {
      path = readFileSync(join(resolve(dataDir), SOCKET_POINTER), 'utf8').trim();
    } catch {
      return null;
    }
  }
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(path);
  } catch (error) {
    // No socket: no server. Anything else (DATA_DIR is a file...) is the command's failure.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const uid = process.getuid?.();
  if (uid === undefined) return path;
  // The service's user: this one, or (an administrator running the command) DATA_DIR's owner.
  let owners = [uid];
  try {
    owners = [uid, statSync(resolve(dataDir)).uid];
  } catch {}
  const refuse = (why: Message) =>
    new UntrustedSocket({ key: 'admin.untrusted_socket', params: { path, why } });
  // A file that is no socket (left by a crash) answers nothing: no server.
  if (!info.isSocket()) return null;
  if (!owners.includes(info.uid)) throw refuse({ key: 'admin.socket_owner', params: { uid: info.uid } });
  if ((info.mode & 0o077) !== 0) {
    throw refuse({ key: 'admin.socket_mode', params: { mode: (info.mode & 0o777).toString(8) } });
  }
  const parent = lstatSync(dirname(path));
  if (
    !parent.isDirectory() ||
    !(owners.includes(parent.uid) || parent.uid === 0) ||
    (parent.mode & 0o022) !== 0
  ) {
    throw refuse({ key: 'admin.socket_dir', params: { dir: dirname(path) } });
  }
  return path;
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
        reject(new OperationError({ key: 'admin.request_too_large' }));
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
  const pointer = path === insideDataDir(dataDir) ? null : join(resolve(dataDir), SOCKET_POINTER);
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
        throw new OperationError({ key: 'admin.not_json' });
      }
      const header = req.headers[ACTOR_HEADER];
      const actor = typeof header === 'string' && header !== '' ? decodeURIComponent(header) : 'unknown';
      const result = await runOperation(match[1], args, actor);
      send(200, { result, api_base_url: apiBaseUrl });
    } catch (error) {
      if (error instanceof OperationError) {
        const kind = error instanceof ArgumentError ? 'argument' : 'operation';
        // (with its catalog text, so that the command tells it in its operator's language)
        send(422, { error: { kind, message: error.message, ...(error.text ? { text: error.text } : {}) } });
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
  if (pointer) writeFileSync(pointer, `${path}\n`, { mode: 0o600 });
  let closing: Promise<void> | null = null;
  return {
    path,
    close() {
      closing ??= new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeIdleConnections();
      }).then(() => {
        unlinkIfPresent(path);
        if (pointer) unlinkIfPresent(pointer);
      });
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
  let path: string | null;
  try {
    path = trustedSocketPath(dataDir);
  } catch (error) {
    return Promise.reject(error);
  }
  if (path === null) return Promise.reject(new NoServer('no admin socket'));
  const socketPath = path;
  const body = JSON.stringify(args);
  return new Promise((resolvePromise, reject) => {
    let connected = false;
    const req = httpRequest(
      {
        socketPath,
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
            error?: { kind?: string; message?: string; text?: unknown };
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
            reject(
              new ArgumentError(
                messageOf(parsed.error.text) ?? serverSaid(parsed.error.message, 'bad argument'),
              ),
            );
          } else if (parsed.error?.kind === 'operation') {
            reject(
              new OperationError(messageOf(parsed.error.text) ?? serverSaid(parsed.error.message, 'refused')),
            );
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

/**
 * A catalog text sent by the server, if it is one this command knows (versions may differ), its
 * inner texts too (a refusal's reason is one).
 */
function messageOf(text: unknown): Message | undefined {
  if (typeof text !== 'object' || text === null) return undefined;
  const { key, params } = text as { key?: unknown; params?: unknown };
  if (!isTextKey(key)) return undefined;
  const values: MessageParams = {};
  for (const [name, value] of Object.entries(typeof params === 'object' && params !== null ? params : {})) {
    if (typeof value === 'string' || typeof value === 'number') {
      values[name] = value;
    } else {
      const inner = messageOf(value);
      if (!inner) return undefined;
      values[name] = inner;
    }
  }
  return { key, params: values };
}

/** The server's English words, when its text is not one this command knows. */
function serverSaid(message: string | undefined, fallback: string): Message {
  return { key: 'admin.server_said', params: { message: message ?? fallback } };
}
