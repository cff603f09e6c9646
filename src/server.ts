// Listens. Everything else is built by buildApp; the operator CLI's `serve` calls startServer.
import { type App, buildApp } from './app.js';
import type { Config } from './config.js';

export interface RunningServer {
  app: App;
  address: string;
  stop(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const app = await buildApp({ config });
  const address = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= app.close();
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
