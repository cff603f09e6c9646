// Listens. Everything else is built by buildApp; the operator CLI's `serve` calls startServer and
// decides when to stop (src/cli/shutdown.ts): first `drain()`, later `stop()`.
import type { ServerResponse } from 'node:http';
import { type App, type AppOptions, buildApp } from './app.js';
import type { Config } from './config.js';

export interface RunningServer {
  app: App;
  address: string;
  /**
   * From now on every response closes its connection (`Connection: close`): a client on a kept-alive
   * connection gets its answer, then opens a new connection, which the load balancer sends to
   * another instance. Nothing is refused.
   */
  drain(): void;
  /**
   * Stops accepting connections, answers the requests already received (each closing its
   * connection) and closes idle kept-alive connections.
   */
  stop(): Promise<void>;
}

export type ServerOptions = Omit<AppOptions, 'config'>;

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const app = await buildApp({ ...options, config });
  let draining = false;
  /** Responses not sent yet: those in flight when the drain starts close their connection too. */
  const unanswered = new Set<ServerResponse>();
  // Before Fastify's own listener, so that every response of the drain carries the header.
  app.server.prependListener('request', (_request, response) => {
    if (draining) {
      response.setHeader('connection', 'close');
      return;
    }
    unanswered.add(response);
    response.once('close', () => unanswered.delete(response));
  });
  const drain = () => {
    if (draining) return;
    draining = true;
    for (const response of unanswered) if (!response.headersSent) response.setHeader('connection', 'close');
    unanswered.clear();
  };
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  let stopping: Promise<void> | null = null;
  return {
    app,
    address,
    drain,
    stop: () => {
      drain();
      stopping ??= app.close();
      return stopping;
    },
  };
}
