// The delivery worker: runs in every server process (`serve`), on both storages. It takes due
// deliveries with a lease (src/webhooks/deliveries.ts), up to `concurrency` in flight at once (each
// to a different endpoint), makes each attempt (src/webhooks/sender.ts) holding no database
// connection, and writes its outcome. When there is nothing to do it looks again every
// `pollIntervalMs`; a finished attempt, or `wake()`, makes it look at once.
//
// Stopping: no new delivery is taken; the attempts in flight get `graceMs` to finish, then are
// abandoned and their leases given back, so that another instance takes them at once. A process
// killed mid-attempt leaves its lease to expire, and the delivery is made again: at least once,
// receivers dedupe by `webhook-id`.
import { randomBytes } from 'node:crypto';
import { context, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { contextOfTraceparent, traceHeaders } from '../tracing/propagation.js';
import {
  attemptDelivery,
  claimDue,
  type DueDelivery,
  type Lease,
  releaseAllLeases,
  releaseLease,
  saveOutcome,
} from './deliveries.js';
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
  /**
   * With tracing on (src/tracing/start.ts): each attempt is a span of the trace of the write that
   * caused its event, and sends that trace on in `traceparent`.
   */
  tracer?: Tracer | null;
}

export interface WebhookWorker {
  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void;
  /**
   * Takes nothing more; attempts in flight get `graceMs` (default: as long as they take, each
   * bounded by its timeout), then are abandoned with their leases given back.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
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
/** Beyond the attempt's own timeout, time to write its outcome before the lease may be taken over. */
const LEASE_MARGIN_MS = 5000;

export function startWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, kind } = options.handle;
  const { log } = options;
  const settings = options.config.webhooks;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  const timeoutMs = options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const leaseMs = timeoutMs + LEASE_MARGIN_MS;
  const policy = { allowHttp: settings.allowHttp, allowPrivate: settings.allowPrivate };
  const maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const workerId = `whw_${randomBytes(4).toString('hex')}`;
  let claims = 0;
  /** Attempts in flight, each with the controller that abandons it at shutdown. */
  const inFlight = new Map<number, { done: Promise<void>; abandon: AbortController }>();
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  /** A wake-up that came while the loop was not pausing: its next pause ends at once. */
  let woken = false;

  const wake = () => {
    const resolve = wakeUp;
    wakeUp = null;
    if (resolve) resolve();
    else woken = true;
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      wakeUp = done;
    });

  /** The attempt, in a span of the event's trace when tracing is on. */
  function attempt(delivery: DueDelivery, lease: Lease, abandon: AbortSignal): Promise<void> {
    const tracer = options.tracer;
    if (!tracer) return attemptAndRecord(delivery, lease, abandon, {}, {}).then(() => undefined);
    const parent = contextOfTraceparent(delivery.traceparent);
    const span = tracer.startSpan(
      'webhook delivery attempt',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'invoicing.company_id': delivery.companyId,
          'invoicing.webhook.event_id': delivery.eventPublicId,
          'invoicing.webhook.event_type': delivery.eventType,
          'invoicing.webhook.endpoint_id': delivery.endpointId,
          'invoicing.webhook.delivery_id': delivery.id,
          'invoicing.webhook.attempt': delivery.attempts + 1,
          'http.request.method': 'POST',
          'server.address': new URL(delivery.url).hostname,
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    const { traceId, spanId } = span.spanContext();
    return context
      .with(active, () =>
        attemptAndRecord(delivery, lease, abandon, traceHeaders(active), {
          trace_id: traceId,
          span_id: spanId,
        }),
      )
      .then(
        (result) => {
          if (result?.statusCode) span.setAttribute('http.response.status_code', result.statusCode);
          if (result && !result.succeeded)
            span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? '' });
          span.end();
        },
        (error: unknown) => {
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          throw error;
        },
      );
  }

  async function attemptAndRecord(
    delivery: DueDelivery,
    lease: Lease,
    abandon: AbortSignal,
    headers: Record<string, string>,
    traceFields: object,
  ): Promise<{ statusCode: number | null; succeeded: boolean; error: string | null } | undefined> {
    const result = await attemptDelivery(
      delivery,
      { policy, timeoutMs, maxResponseBytes, signal: abandon },
      headers,
    );
    const fields = {
      ...traceFields,
      worker: workerId,
      event: delivery.eventPublicId,
      type: delivery.eventType,
      endpoint: delivery.endpointId,
      delivery: delivery.id,
      attempt: delivery.attempts + 1,
    };
    if (abandon.aborted) {
      await releaseLease(db, delivery.id, lease);
      log.info(fields, 'webhook attempt abandoned at shutdown; another instance makes it');
      return undefined;
    }
    const outcome = await saveOutcome(db, delivery, result, settings.retrySchedule, lease);
    const measured = { ...fields, status_code: result.statusCode, latency_ms: result.latencyMs };
    if (!outcome.recorded) {
      log.warn(measured, 'webhook attempt outlived its lease; another worker took the delivery');
    } else if (result.succeeded) {
      log.info(measured, 'webhook delivered');
    } else if (outcome.endpointDisabled) {
      log.warn(
        { ...measured, error: result.error },
        `webhook endpoint ${delivery.endpointId} disabled: event ${delivery.eventPublicId} failed its last attempt`,
      );
    } else {
      log.info(
        { ...measured, error: result.error, retry_in_ms: outcome.retryInMs },
        'webhook attempt failed',
      );
    }
    return result;
  }

  function start(delivery: DueDelivery, lease: Lease): void {
    const abandon = new AbortController();
    const done = attempt(delivery, lease, abandon.signal)
      .catch((error) => {
        // The lease expires and the delivery is made again.
        log.error(
          { err: error, worker: workerId, delivery: delivery.id },
          'webhook attempt failed to complete',
        );
      })
      .finally(() => {
        inFlight.delete(delivery.id);
        wake(); // a slot is free, and the endpoint's next event may be due
      });
    inFlight.set(delivery.id, { done, abandon });
  }

  async function loop(): Promise<void> {
    if (kind === 'pglite') {
      const released = await releaseAllLeases(db).catch(() => 0);
      if (released > 0)
        log.info({ worker: workerId, released }, 'webhook leases of a stopped process released');
    }
    while (!stopped) {
      const free = concurrency - inFlight.size;
      let claimed = 0;
      if (free > 0) {
        const lease: Lease = { owner: `${workerId}.${++claims}` };
        try {
          const due = await claimDue(db, { owner: lease.owner, leaseMs, limit: free });
          claimed = due.length;
          for (const delivery of due) start(delivery, lease);
        } catch (error) {
          if (stopped) break;
          log.error({ err: error, worker: workerId }, 'webhook worker failed; trying again shortly');
          await pause(ERROR_BACKOFF_MS);
          continue;
        }
      }
      if (stopped) break;
      // All slots just filled: look again as soon as one frees. Otherwise nothing more is due now.
      if (claimed > 0 && claimed === free) continue;
      await pause(inFlight.size >= concurrency ? 2 ** 31 - 1 : pollIntervalMs);
    }
  }

  const looping = loop();
  log.info({ worker: workerId, storage: kind, concurrency }, 'webhook worker started');

  let stopping: Promise<void> | null = null;
  const worker: WebhookWorker = {
    wake,
    stop(stopOptions = {}) {
      stopping ??= (async () => {
        stopped = true;
        running.delete(worker);
        wake();
        await looping;
        const attempts = [...inFlight.values()];
        let timer: NodeJS.Timeout | undefined;
        if (stopOptions.graceMs !== undefined && attempts.length > 0) {
          timer = setTimeout(() => {
            for (const { abandon } of inFlight.values()) abandon.abort();
          }, stopOptions.graceMs);
        }
        await Promise.allSettled(attempts.map((entry) => entry.done));
        clearTimeout(timer);
        log.info({ worker: workerId }, 'webhook worker stopped');
      })();
      return stopping;
    },
  };
  running.add(worker);
  return worker;
}
