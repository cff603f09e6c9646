// Runs the real bin/invoicing as a child process, on the storage of the current test project:
// TEST_STORAGE=pglite gives a fresh temporary DATA_DIR, postgres a fresh migrated database.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertConforms } from './conformance.js';
import { createEmptyPostgresDatabase, createTestDatabase, migratedDataDir, testStorage } from './database.js';

export const BIN = fileURLToPath(new URL('../../bin/invoicing', import.meta.url));

/**
 * Timeout of a test that starts processes (servers, commands, PGlite in each): each waits for a
 * condition, bounded; on a loaded machine they take several times as long as on a quiet one.
 */
export const PROCESS_TEST_TIMEOUT_MS = 240_000;

/** Environment of every child: nothing inherited that could point at another database. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    NO_COLOR: '1',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    // The docs server has its own tests (test/docs/); these servers do not start it.
    DOCS_PORT: 'off',
    // Nor the support console (test/console/).
    CONSOLE_PORT: 'off',
    // A stop is immediate (no drain even with OPS_PORT); test/cli/shutdown.process.test.ts sets its own.
    SHUTDOWN_DRAIN_MS: '0',
    RATE_LIMIT_KEY_PER_MINUTE: '100000',
    RATE_LIMIT_KEY_WRITES_PER_MINUTE: '100000',
    RATE_LIMIT_KEY_PER_DAY: '100000',
    RATE_LIMIT_COMPANY_PER_MINUTE: '100000',
    RATE_LIMIT_IP_PER_MINUTE: '100000',
  };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return env;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...baseEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The same command line in this process (main() of src/cli/main.ts, with its own environment):
 * for the many variants of a command whose real-executable run is tested elsewhere.
 */
export async function runInProcess(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const { main } = await import('../../src/cli/main.js');
  let stdout = '';
  let stderr = '';
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const code = await main([...args], {
    out: (text) => {
      stdout += line(text);
    },
    err: (text) => {
      stderr += line(text);
    },
    env: { ...baseEnv(), ...env },
  });
  if (code === 'serving') throw new Error('serve is not run in-process');
  return { code, stdout, stderr };
}

/** Runs a command with --json and returns its one JSON object; fails loudly otherwise. */
export async function cliJson<T = Record<string, unknown>>(
  args: readonly string[],
  env: Record<string, string>,
): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) {
    throw new Error(`bin/invoicing ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

/**
 * `cliJson` through main() in this process: the same command line without a new process, for the
 * many commands run next to a running server (the real executable is run where the process itself
 * matters). Never for two commands at once on an embedded database without a server: both would
 * be this process, and the DATA_DIR lock tells processes apart.
 */
export async function commandJson<T = Record<string, unknown>>(
  args: readonly string[],
  env: Record<string, string>,
): Promise<T> {
  const result = await runInProcess([...args, '--json'], env);
  if (result.code !== 0) {
    throw new Error(`bin/invoicing ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

export interface CliStorage {
  kind: 'pglite' | 'postgres';
  /** DATA_DIR or DATABASE_URL for the children. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A fresh database of the current project's storage, migrated: on PGlite a DATA_DIR holding a copy
 * of the migrated database the global setup made (so a server's first start skips creating the
 * cluster; it still finds no company: `serve --demo` makes the demo). `migrated: false`: an empty PostgreSQL
 * database, or a DATA_DIR that does not exist yet.
 */
export async function createCliStorage(options: { migrated?: boolean } = {}): Promise<CliStorage> {
  if (testStorage() === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'invoicing-cli-'));
    const dataDir = join(dir, 'data');
    if (options.migrated !== false) await migratedDataDir(dataDir);
    return {
      kind: 'pglite',
      env: { DATA_DIR: dataDir },
      close: () => rm(dir, { recursive: true, force: true }),
    };
  }
  if (options.migrated === false) {
    const empty = await createEmptyPostgresDatabase();
    return { kind: 'postgres', env: { DATABASE_URL: empty.url }, close: () => empty.drop() };
  }
  const database = await createTestDatabase('postgres');
  return { kind: 'postgres', env: { DATABASE_URL: database.url as string }, close: () => database.close() };
}

export interface ServeProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  apiBaseUrl: string;
  /** The --json ready line, or null in text mode. */
  ready: Record<string, unknown> | null;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `bin/invoicing serve` and waits until it listens (JSON ready line, or the text banner). */
export function startServe(
  env: Record<string, string>,
  options: { json?: boolean; args?: string[] } = {},
): Promise<ServeProcess> {
  const json = options.json ?? true;
  const child = spawn(
    process.execPath,
    [BIN, 'serve', ...(options.args ?? []), ...(json ? ['--json'] : [])],
    {
      env: { ...baseEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in time; stdout: ${stdout} stderr: ${stderr}`));
    }, 90_000);
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    };
    const check = () => {
      let ready: Record<string, unknown> | null = null;
      let url: string | undefined;
      if (json) {
        const newline = stdout.indexOf('\n');
        if (newline < 0) return;
        ready = JSON.parse(stdout.slice(0, newline));
        url = ready?.url as string;
      } else {
        if (!/={20,}\n\n$/.test(stdout)) return; // the banner's closing rule
        // (the API's address, whatever the banner's language)
        url = /(http:\/\/[^\s/]+)\/api\/v1\/partner/.exec(stdout)?.[1];
      }
      if (!url) return;
      clearTimeout(timer);
      resolve({
        child,
        url,
        apiBaseUrl: `${url}/api/v1/partner`,
        ready,
        stdout: () => stdout,
        stderr: () => stderr,
        stop,
      });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      check();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}

export interface HttpAnswer {
  status: number;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of the API, checked field by field by the tests
  body: any;
}

/** A GET (or write) on the partner API of a running server, with a key. */
export async function apiCall(
  apiBaseUrl: string,
  key: string,
  path: string,
  init: { method?: string; body?: unknown; idempotencyKey?: string } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
  const response = await fetch(`${apiBaseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  assertConforms({
    method: init.method ?? 'GET',
    url: new URL(`${apiBaseUrl}${path}`).pathname + new URL(`${apiBaseUrl}${path}`).search,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: text,
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: text ? JSON.parse(text) : null,
  };
}
