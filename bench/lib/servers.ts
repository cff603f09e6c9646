// Starting the servers under test: the project's API (`bin/invoicing serve --json`, on PostgreSQL
// or on an embedded PGlite directory) and the bare yardstick server. Each prints one JSON line
// when ready; logs go to a file. PORT=0 lets the kernel pick a free port.
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { startChild, stopChild } from '../../scripts/lib/children.js';
import { SERVER_NODE_OPTIONS } from '../../scripts/lib/node-options.js';
import { invoicingBin, repoRoot } from '../../scripts/lib/repo.js';
import { type CliTarget, storageEnv } from './invoicing-cli.js';
import { benchDir } from './paths.js';

export interface RunningServer {
  name: string;
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Limits high enough that no request of the bench is ever refused (the limits are still checked). */
export const GENEROUS_LIMITS: NodeJS.ProcessEnv = {
  RATE_LIMIT_KEY_PER_MINUTE: '1000000000',
  RATE_LIMIT_KEY_WRITES_PER_MINUTE: '1000000000',
  RATE_LIMIT_KEY_PER_DAY: '1000000000',
  RATE_LIMIT_COMPANY_PER_MINUTE: '1000000000',
  RATE_LIMIT_IP_PER_MINUTE: '1000000000',
};

async function waitForReadyLine(
  child: ChildProcess,
  name: string,
  timeoutMs = 120_000,
): Promise<{ url: string; pid: number }> {
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${name} exited before it was ready (${code ?? signal})`)),
    ),
  );
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${name} not ready after ${timeoutMs / 1000} s`)), timeoutMs).unref(),
  );
  const ready = (async () => {
    for await (const line of lines) {
      if (line.startsWith('{')) return JSON.parse(line) as { url: string; pid: number };
    }
    throw new Error(`${name} closed its output before it was ready`);
  })();
  return Promise.race([ready, exited, timeout]);
}

/**
 * How a server's process is launched: Node's own options (e.g. `--cpu-prof`), and for the API the
 * checkout it runs from (another commit's work tree, `--before`).
 */
export interface Launch {
  nodeArgs?: string[];
  root?: string;
}

/** Node's options that record a CPU profile of the main thread into `directory` when it exits. */
export function cpuProfileArgs(directory: string): string[] {
  return ['--cpu-prof', `--cpu-prof-dir=${directory}`];
}

async function start(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  cwd = repoRoot,
): Promise<RunningServer> {
  const log = openSync(logFile, 'w');
  const child = startChild(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', log] });
  closeSync(log);
  try {
    const ready = await waitForReadyLine(child, name);
    return { name, url: ready.url, pid: child.pid!, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw new Error(`${(error as Error).message}; see ${logFile}`);
  }
}

/** The settings of the API server under test, as the bench's pages state them. */
export function describeApiServer(): string {
  const redis = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  return `the compiled build (dist/), LOG_LEVEL=info (a request line each), rate limits counted in Redis (${redis}) with limits no request reaches, NODE_OPTIONS=${SERVER_NODE_OPTIONS}, compression on`;
}

/**
 * The API as operators run it: request logging at LOG_LEVEL=info (to `logFile`), rate limits in
 * Redis (REDIS_URL, default the local one) with generous values, production's NODE_OPTIONS.
 */
export function startApiServer(
  name: string,
  target: CliTarget,
  logFile: string,
  settings: NodeJS.ProcessEnv = {},
  launch: Launch = {},
): Promise<RunningServer> {
  const env = {
    ...storageEnv(target),
    ...GENEROUS_LIMITS,
    PORT: '0',
    HOST: '127.0.0.1',
    // Only the API is measured; a second server (tracing's) would find the first's docs and
    // console ports taken, and a busy port stops a start.
    DOCS_PORT: 'off',
    CONSOLE_PORT: 'off',
    LOG_LEVEL: 'info',
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    NODE_OPTIONS: SERVER_NODE_OPTIONS,
    // The bench stops its servers at once: no load balancer to drain for, and a server killed
    // after the grace time would write no CPU profile.
    SHUTDOWN_DRAIN_MS: '0',
    ...settings,
  };
  const root = launch.root ?? repoRoot;
  const bin = launch.root ? `${launch.root}/bin/invoicing` : invoicingBin;
  return start(name, [...(launch.nodeArgs ?? []), bin, 'serve', '--json'], env, logFile, root);
}

export function startBareServer(
  databaseUrl: string,
  companyId: number,
  logFile: string,
  launch: Pick<Launch, 'nodeArgs'> = {},
): Promise<RunningServer> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, COMPANY_ID: String(companyId), PORT: '0' };
  return start(
    'bare node:http + pg',
    [...(launch.nodeArgs ?? []), '--import', 'tsx', `${benchDir}bare-server.ts`],
    env,
    logFile,
  );
}
