// How `serve` stops (close-with-grace), on SIGTERM, SIGINT and the other termination signals:
//   1. at once: /readyz answers 503, every API response closes its connection, the webhook worker
//      takes nothing new (`begin`);
//   2. for SHUTDOWN_DRAIN_MS the API keeps serving, so that a load balancer polling /readyz
//      notices and sends new connections elsewhere, without one request refused;
//   3. then it stops accepting connections, answers the requests it has, closes the kept-alive
//      connections, lets the webhook attempts finish, closes the pools (`finish`), and exits 0.
// All of it within SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS, or the process exits 1 anyway; a
// second signal exits 1 at once. An uncaught error closes the same way, without the drain.
import { setTimeout as sleep } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import type { ShutdownConfig } from '../config.js';

export interface ShutdownLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface ShutdownSteps {
  /** Right at the signal: stop being ready, and start closing connections after their answers. */
  begin(): void;
  /** After the drain: close everything, in order. */
  finish(): Promise<void>;
}

export interface Shutdown {
  /** Removes the signal handlers (a start that failed, whose caller reports and exits itself). */
  uninstall(): void;
}

export function closeOnSignals(
  settings: ShutdownConfig,
  log: ShutdownLogger,
  steps: ShutdownSteps,
): Shutdown {
  const bound = settings.drainMs + settings.timeoutMs;
  const handlers = closeWithGrace(
    {
      delay: bound,
      logger: { error: (message: unknown) => log.error({ detail: String(message) }, 'shutdown') },
      onSecondSignal: (signal) => log.warn({ signal }, 'second signal: exiting now'),
      onSecondError: (error) => log.error({ err: error }, 'second failure while stopping: exiting now'),
      onTimeout: (delay) => log.error({ bound_ms: delay }, 'shutdown took too long: exiting now'),
    },
    async ({ signal, err }) => {
      const started = Date.now();
      if (err) log.error({ err }, 'unexpected failure: stopping');
      else log.info({ signal, drain_ms: settings.drainMs, bound_ms: bound }, 'stopping');
      steps.begin();
      if (!err && settings.drainMs > 0) await sleep(settings.drainMs);
      await steps.finish();
      log.info({ ms: Date.now() - started }, 'stopped');
    },
  );
  return { uninstall: handlers.uninstall };
}
