// Checks made before anything is created: the ports `serve` will listen on are free, and DATA_DIR
// is what it should be. A start that would fail must fail before it creates a database, a demo
// company or keys that nobody ever sees.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config.js';
import { english, type Message } from '../i18n/message.js';

/** A start refused before anything was created; the message says what is wrong. */
export class StartRefused extends Error {
  constructor(readonly text: Message) {
    super(english(text));
  }
}

type PortVariable = 'PORT' | 'OPS_PORT' | 'DOCS_PORT';

function portProblem(error: NodeJS.ErrnoException, variable: string, host: string, port: number): Message {
  const hostVariable = variable === 'OPS_PORT' ? 'OPS_HOST' : 'HOST';
  switch (error.code) {
    case 'EADDRINUSE':
      return {
        key: variable === 'DOCS_PORT' ? 'start.port_in_use_docs' : 'start.port_in_use',
        params: { port, host, variable },
      };
    case 'EACCES':
      return { key: 'start.port_privileged', params: { port, variable } };
    case 'EADDRNOTAVAIL':
      return { key: 'start.not_an_address', params: { host, variable: hostVariable } };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { key: 'start.unresolvable', params: { host, variable: hostVariable } };
    default:
      return {
        key: 'start.cannot_listen',
        params: { host, port, variable, reason: error.code ?? error.message },
      };
  }
}

/** The message for a listen that failed, e.g. "port 3000 is in use on 127.0.0.1 (PORT): ...". */
export function listenProblem(
  error: unknown,
  variable: PortVariable,
  host: string,
  port: number,
): Message | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (!code || !/^E[A-Z]+$/.test(code)) return null;
  return portProblem(error as NodeJS.ErrnoException, variable, host, port);
}

/** Binds and releases the port at once; refuses with a clear message when that is impossible. */
async function probePort(host: string, port: number, variable: PortVariable): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new StartRefused(portProblem(error, variable, host, port))),
    );
    server.listen({ host, port, exclusive: true }, () => resolvePromise());
  });
  await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
}

export async function checkPorts(config: Config): Promise<void> {
  await probePort(config.host, config.port, 'PORT');
  if (config.opsPort !== undefined) await probePort(config.opsHost, config.opsPort, 'OPS_PORT');
  // A busy docs port stops the start, as DOCS_PORT = PORT does: every doc_url would lead there.
  if (config.docsPort !== null) await probePort(config.host, config.docsPort, 'DOCS_PORT');
}

// ---- DATA_DIR ----

/** Files of ours that may be in DATA_DIR before the database is: the lock and the admin socket. */
const OWN_FILES = /^(invoicing\.lock.*|admin\.sock|admin-socket\.path)$/;

export type DataDirState =
  /** it holds an embedded database */
  | 'database'
  /** it does not exist (its parent does) */
  | 'missing'
  /** it exists and holds nothing but our own lock or socket */
  | 'empty'
  /** it exists and holds other things, but no database */
  | 'foreign'
  /** neither it nor its parent exist: a typo, most likely */
  | 'no-parent'
  /** it is a file */
  | 'not-a-directory';

export function inspectDataDir(dataDir: string): DataDirState {
  const dir = resolve(dataDir);
  if (!existsSync(dir)) return existsSync(dirname(dir)) ? 'missing' : 'no-parent';
  if (!statSync(dir).isDirectory()) return 'not-a-directory';
  if (existsSync(resolve(dir, 'PG_VERSION'))) return 'database';
  return readdirSync(dir).every((name) => OWN_FILES.test(name)) ? 'empty' : 'foreign';
}

/**
 * Makes sure DATA_DIR can hold the embedded database. Returns a notice to print loudly when the
 * database is about to be created (a new directory, or an empty one); refuses a directory that
 * holds something else, or one whose parent does not exist (a mistyped path).
 */
export function prepareDataDir(dataDir: string): Message | null {
  const dir = resolve(dataDir);
  const state = inspectDataDir(dataDir);
  switch (state) {
    case 'database':
      return null;
    case 'no-parent':
      throw new StartRefused({ key: 'start.data_dir_no_parent', params: { dir, parent: dirname(dir) } });
    case 'not-a-directory':
      throw new StartRefused({ key: 'start.data_dir_file', params: { dir } });
    case 'foreign':
      throw new StartRefused({ key: 'start.data_dir_foreign', params: { dir } });
    case 'missing':
      mkdirSync(dir, { mode: 0o700 });
      return { key: 'start.data_dir_created', params: { dir } };
    case 'empty':
      return { key: 'start.data_dir_empty', params: { dir } };
  }
}

/**
 * For every command but `serve`, `migrate`, `demo` and `restore`: they work on the server's
 * database, never on a new one. Refuses, creating nothing, when DATA_DIR holds no database.
 */
export function requireExistingDatabase(dataDir: string): void {
  const state = inspectDataDir(dataDir);
  if (state === 'database') return;
  const dir = resolve(dataDir);
  const why: Message = {
    key:
      state === 'empty'
        ? 'start.why_empty'
        : state === 'foreign'
          ? 'start.why_foreign'
          : state === 'not-a-directory'
            ? 'start.why_file'
            : 'start.why_missing',
  };
  throw new StartRefused({ key: 'start.no_database', params: { dir, why } });
}
