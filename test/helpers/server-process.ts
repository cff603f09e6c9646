// A real server process (`bin/invoicing serve`) for tests that need real HTTP, several
// instances or a crash. Killed in the test's afterAll.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { API_PREFIX } from '../../src/app-constants.js';

const BIN = fileURLToPath(new URL('../../bin/invoicing', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  /** Ends the process with the given signal and waits for it to be gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** How long a start may take on a loaded machine (polled: a quiet one takes a few seconds). */
const START_PATIENCE_MS = 90_000;

/** `args` after `serve`: `['--demo']` for a first start that makes the demo company and prints its keys. */
export async function startServerProcess(
  env: Record<string, string>,
  port?: number,
  args: string[] = [],
): Promise<ServerProcess> {
  const listenPort = port ?? (await freePort());
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    // The docs server has its own tests (test/docs/); these servers do not start it.
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      DOCS_PORT: 'off',
      CONSOLE_PORT: 'off',
      ...env,
      PORT: String(listenPort),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${listenPort}${API_PREFIX}`;
  const deadline = Date.now() + START_PATIENCE_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      await fetch(`${baseUrl}/ping`);
      // Listening is not ready: the banner (with a new demo company's keys) comes last.
      // (the banner's line naming the API's address, whatever its language; or the JSON ready line)
      if (output.includes(` ${baseUrl}\n`) || output.includes('"api_base_url"')) break;
      throw new Error('not ready yet');
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`server did not start in time:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    baseUrl,
    child,
    output: () => output,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
