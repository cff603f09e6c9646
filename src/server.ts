// Listens. Everything else is built by buildApp; the operator CLI's `serve` calls startServer.
import { type App, type AppOptions, buildApp } from './app.js';
import type { Config } from './config.js';

export interface RunningServer {
  app: App;
  address: string;
  stop(): Promise<void>;
}

export interface ServerOptions extends Omit<AppOptions, 'config'> {
  /** Runs once the API has stopped (e.g. close the admin socket and the database, release a lock). */
  onStop?: () => Promise<void>;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const { onStop, ...appOptions } = options;
  const app = await buildApp({ ...appOptions, config });
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= app.close().then(() => onStop?.());
    return stopping;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      app.log.info({ signal }, 'shutting down');
      stop().then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { app, address, stop };
}
