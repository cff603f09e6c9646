// The instances under test: the compiled server of this checkout (`node bin/invoicing serve
// --json`), each with its own API and operations port, on the rehearsal's PostgreSQL and Redis,
// behind HAProxy (TRUST_PROXY). `serve --json` prints one JSON line once it listens; the instance
// counts as ready when its /readyz answers 200 as well.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SERVER_NODE_OPTIONS } from '../../../scripts/lib/node-options.js';
import { invoicingBin, repoRoot } from '../../../scripts/lib/repo.js';
import {
  deadline,
  exitAsError,
  getText,
  isRunning,
  signalAndWait,
  startLogged,
  waitUntil,
} from './processes.js';

const START_TIMEOUT_MS = 120_000;

export interface InstanceSettings {
  name: string;
  port: number;
  opsPort: number;
  databaseUrl: string;
  redisUrl: string;
  /** SHUTDOWN_DRAIN_MS: how long a stopping instance keeps serving while the proxy notices. */
  drainMs: number;
  logFile: string;
  /** Called when the process exits without being asked to (a crash). */
  onCrash?: (exit: string) => void;
  /** Variables of this rehearsal's own (they win over the ones below). */
  extraEnv?: NodeJS.ProcessEnv;
}

/** Rate limits stay on (counted in Redis) but high enough that the steady load is never refused. */
const ROOMY_LIMITS: NodeJS.ProcessEnv = {
  RATE_LIMIT_KEY_PER_MINUTE: '100000',
  RATE_LIMIT_KEY_WRITES_PER_MINUTE: '100000',
  RATE_LIMIT_KEY_PER_DAY: '10000000',
  RATE_LIMIT_COMPANY_PER_MINUTE: '100000',
  RATE_LIMIT_IP_PER_MINUTE: '100000',
};

export function instanceEnv(
  settings: Omit<InstanceSettings, 'name' | 'logFile' | 'onCrash'>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATA_DIR', 'DOCS_URL', 'LOG_LEVEL', 'LOG_FORMAT', 'TRUST_PROXY', 'HOST', 'OPS_HOST'])
    delete env[name];
  return {
    ...env,
    ...ROOMY_LIMITS,
    NODE_ENV: 'production',
    NODE_OPTIONS: SERVER_NODE_OPTIONS,
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redisUrl,
    HOST: '127.0.0.1',
    PORT: String(settings.port),
    OPS_HOST: '127.0.0.1',
    OPS_PORT: String(settings.opsPort),
    // HAProxy runs on this host: X-Forwarded-For from 127.0.0.1 is believed, from nobody else.
    TRUST_PROXY: '127.0.0.1',
    DOCS_PORT: 'off',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    SHUTDOWN_DRAIN_MS: String(settings.drainMs),
    // The webhook receivers of the rehearsal listen on 127.0.0.1 over plain http.
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_SCHEDULE: '5s,10s,30s',
    ...settings.extraEnv,
  };
}

export interface Instance {
  name: string;
  port: number;
  opsPort: number;
  pid(): number | undefined;
  start(): Promise<{ ms: number }>;
  /** SIGTERM and wait for the exit (bounded: the drain plus 30 s, then SIGKILL). */
  stop(): Promise<{ ms: number; killed: boolean }>;
  kill(): Promise<void>;
  running(): boolean;
}

export function createInstance(settings: InstanceSettings): Instance {
  let child: ChildProcess | null = null;
  const { onCrash, ...envSettings } = settings;
  const env = instanceEnv(envSettings);
  /** Set while the rehearsal itself stops the process: any other exit is a crash. */
  let asked = false;
  const opsUrl = `http://127.0.0.1:${settings.opsPort}`;

  async function start(): Promise<{ ms: number }> {
    const started = performance.now();
    const spawned = startLogged(
      process.execPath,
      [invoicingBin, 'serve', '--json'],
      settings.logFile,
      { cwd: repoRoot, env },
      'pipe',
    );
    child = spawned;
    asked = false;
    spawned.once('exit', (code, signal) => {
      if (!asked) onCrash?.(`exit ${code ?? signal}`);
    });
    const lines = createInterface({ input: spawned.stdout! });
    const readyLine = (async () => {
      for await (const line of lines) if (line.startsWith('{')) return true;
      throw new Error(`${settings.name} closed its output before it was ready; see ${settings.logFile}`);
    })();
    const crashed = exitAsError(spawned, settings.name, settings.logFile);
    const timeout = deadline(
      START_TIMEOUT_MS,
      `${settings.name} printed no ready line; see ${settings.logFile}`,
    );
    try {
      await Promise.race([readyLine, crashed, timeout.promise]);
    } finally {
      timeout.cancel();
    }
    await Promise.race([
      waitUntil(
        `${settings.name} /readyz 200`,
        async () => (await getText(`${opsUrl}/readyz`)).status === 200,
        START_TIMEOUT_MS,
        100,
      ),
      crashed,
    ]);
    crashed.catch(() => {});
    return { ms: performance.now() - started };
  }

  return {
    name: settings.name,
    port: settings.port,
    opsPort: settings.opsPort,
    pid: () => child?.pid,
    start,
    running: () => child !== null && isRunning(child),
    async stop() {
      if (!child) return { ms: 0, killed: false };
      asked = true;
      return signalAndWait(child, 'SIGTERM', settings.drainMs + 30_000);
    },
    async kill() {
      asked = true;
      if (child) await signalAndWait(child, 'SIGKILL', 10_000);
    },
  };
}

/** The instances run the compiled dist/: refuse to rehearse code older than src/. */
export function checkBuild(): void {
  const stamp = path.join(repoRoot, 'dist/.build-stamp');
  if (!existsSync(stamp)) throw new Error('dist/ is not built: run npm run build (npm ci does it)');
  const built = statSync(stamp).mtimeMs;
  const newest = (readdirSync(path.join(repoRoot, 'src'), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => statSync(path.join(repoRoot, 'src', file)).mtimeMs)
    .reduce((a, b) => Math.max(a, b), 0);
  if (newest > built) throw new Error('src/ changed since dist/ was built: run npm run build first');
}
