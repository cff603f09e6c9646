// The delivery worker: runs in every server process (`serve`), on both storages. A few lanes each
// take one due delivery at a time (src/webhooks/deliveries.ts), make the attempt
// (src/webhooks/sender.ts) and write its outcome. When there is nothing to do, one lane polls the
// outbox every `pollIntervalMs`; as soon as it finds work, the others wake up too.
//
// Stopping: no new delivery is taken, the attempts in flight finish (each ends within its
// timeout). A process killed mid-attempt leaves the delivery pending, and it is made again: at
// least once, receivers dedupe by `webhook-id`.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Database, DatabaseHandle } from '../db/client.js';
import { attemptDelivery, claimDue, type DueDelivery, saveOutcome } from './deliveries.js';
import { ATTEMPT_TIMEOUT_MS, MAX_RESPONSE_BYTES } from './sender.js';

export interface WorkerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface WorkerOptions {
  handle: Pick<DatabaseHandle, 'db' | 'kind'>;
  config: Pick<Config, 'webhooks'>;
  log: WorkerLogger;
  /** Deliveries in flight at once (to different endpoints). */
  concurrency?: number;
  pollIntervalMs?: number;
  attemptTimeoutMs?: number;
  maxResponseBytes?: number;
}

export interface WebhookWorker {
  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/** Workers running in this process, so that an operator command run here can wake them. */
const running = new Set<WebhookWorker>();

/** Wakes the workers of this process (e.g. after `webhooks test` queued a ping). */
export function wakeLocalWorkers(): void {
  for (const worker of running) worker.wake();
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_POLL_MS = 1000;
const ERROR_BACKOFF_MS = 5000;

export function startWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, kind } = options.handle;
  const { log } = options;
  const settings = options.config.webhooks;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  const attemptOptions = {
    policy: { allowHttp: settings.allowHttp, allowPrivate: settings.allowPrivate },
    timeoutMs: options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
    maxResponseBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
  };
  const workerId = `whw_${randomBytes(4).toString('hex')}`;
  /** PGlite: endpoints with an attempt in flight in this process. */
  const inFlight = new Set<number>();
  let stopped = false;
  let sleepers: (() => void)[] = [];

  const wakeAll = () => {
    const waiting = sleepers;
    sleepers = [];
    for (const wake of waiting) wake();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        sleepers = sleepers.filter((entry) => entry !== done);
        resolve();
      }
      sleepers.push(done);
    });

  async function attempt(delivery: DueDelivery, save: Database) {
    const result = await attemptDelivery(delivery, attemptOptions);
    const outcome = await saveOutcome(save, delivery, result, settings.retrySchedule);
    const fields = {
      worker: workerId,
      event: delivery.eventPublicId,
      type: delivery.eventType,
      endpoint: delivery.endpointId,
      delivery: delivery.id,
      attempt: outcome.attempt,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
    };
    if (result.succeeded) {
      log.info(fields, 'webhook delivered');
    } else if (outcome.endpointDisabled) {
      log.warn(
        { ...fields, error: result.error },
        `webhook endpoint ${delivery.endpointId} disabled: event ${delivery.eventPublicId} failed its last attempt`,
      );
    } else {
      log.info({ ...fields, error: result.error, retry_in_ms: outcome.retryInMs }, 'webhook attempt failed');
    }
  }

  /** One delivery, if one is due. True when one was attempted. */
  async function processOne(): Promise<boolean> {
    if (kind === 'postgres') {
      return db.transaction(async (tx) => {
        const delivery = await claimDue(tx, { lock: true });
        if (!delivery) return false;
        await attempt(delivery, tx);
        return true;
      });
    }
    const delivery = await claimDue(db, { lock: false, skipEndpoints: [...inFlight] });
    // Another lane of this process may have taken the same one between the query and now.
    if (!delivery || inFlight.has(delivery.endpointId)) return false;
    inFlight.add(delivery.endpointId);
    try {
      await attempt(delivery, db);
    } finally {
      inFlight.delete(delivery.endpointId);
    }
    return true;
  }

  async function lane(index: number): Promise<void> {
    while (!stopped) {
      let worked = false;
      try {
        worked = await processOne();
      } catch (error) {
        if (stopped) break;
        log.error({ err: error, worker: workerId }, 'webhook worker failed; trying again shortly');
        await sleep(ERROR_BACKOFF_MS);
        continue;
      }
      if (stopped) break;
      if (worked) {
        wakeAll();
        continue;
      }
      // Idle: the first lane polls, the others wait until it finds work (or a slow poll of their own).
      await sleep(index === 0 ? pollIntervalMs : pollIntervalMs * 10);
    }
  }

  const lanes = Array.from({ length: concurrency }, (_, index) => lane(index));
  log.info({ worker: workerId, storage: kind, concurrency }, 'webhook worker started');

  let stopping: Promise<void> | null = null;
  const worker: WebhookWorker = {
    wake: wakeAll,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        running.delete(worker);
        wakeAll();
        await Promise.allSettled(lanes);
        log.info({ worker: workerId }, 'webhook worker stopped');
      })();
      return stopping;
    },
  };
  running.add(worker);
  return worker;
}
