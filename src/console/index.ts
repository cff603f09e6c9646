// What `serve` calls: the support console on CONSOLE_HOST:CONSOLE_PORT, beside the API and the
// docs, never on the API's port. Like the docs, the console is a help, not the service: when it
// cannot start (its port taken; production without CONSOLE_SECRET_KEY) the API runs anyway and
// the banner says why there is no console.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { OperationSetup } from '../operations/index.js';
import { consoleSecretBox, MissingConsoleKey, type SecretBox } from './secret-box.js';
import { buildConsole } from './server.js';

export interface ConsoleServer {
  /** e.g. http://127.0.0.1:3002, or CONSOLE_URL. */
  url: string;
  port: number;
  keySource: SecretBox['source'];
  close(): Promise<void>;
}

export interface ConsoleOutcome {
  server: ConsoleServer | null;
  /** Why there is no console (null when there is one). */
  problem: string | null;
}

export interface ConsoleStart {
  handle: DatabaseHandle;
  setup: OperationSetup;
  /** NODE_ENV=production: CONSOLE_SECRET_KEY is required. */
  production: boolean;
  logger?: FastifyBaseLogger;
}

function shownHost(host: string): string {
  const shown = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return shown.includes(':') ? `[${shown}]` : shown;
}

export async function startConsole(config: Config, start: ConsoleStart): Promise<ConsoleOutcome> {
  try {
    return await listenConsole(config, start);
  } catch (error) {
    return { server: null, problem: `the console could not start: ${(error as Error).message}` };
  }
}

async function listenConsole(config: Config, start: ConsoleStart): Promise<ConsoleOutcome> {
  const settings = config.console;
  if (settings.port === null) return { server: null, problem: 'CONSOLE_PORT=off' };
  let box: SecretBox;
  try {
    box = await consoleSecretBox(start.handle.db, settings.secretKey, start.production);
  } catch (error) {
    if (error instanceof MissingConsoleKey) return { server: null, problem: error.message };
    throw error;
  }
  let listening: string | null = null;
  const app = await buildConsole({
    handle: start.handle,
    setup: start.setup,
    config: settings,
    box,
    trustProxy: config.trustProxy,
    ...(start.logger ? { logger: start.logger.child({ server: 'console' }) } : {}),
    listeningUrl: () => listening,
  });
  try {
    await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    await app.close().catch(() => {});
    const code = (error as NodeJS.ErrnoException).code;
    return {
      server: null,
      problem:
        code === 'EADDRINUSE'
          ? `port ${settings.port} is in use (set CONSOLE_PORT to another port, or off)`
          : (error as Error).message,
    };
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  listening = `http://${shownHost(settings.host)}:${port}`;
  return {
    server: {
      url: settings.urlConfigured ? settings.url : listening,
      port,
      keySource: box.source,
      close: () => app.close(),
    },
    problem: null,
  };
}
