// The Prometheus metrics of webhook deliveries, in a registry of their own that the operations
// server serves with the others (src/monitoring/server.ts). Counters only go up while the process lives;
// Prometheus's rate() and increase() see a restart's reset for what it is (a gauge could not):
//   invoicing_webhook_attempts_total{outcome}          every HTTP attempt: succeeded, failed
//   invoicing_webhook_deliveries_exhausted_total       deliveries given up after their last retry
//   invoicing_webhook_endpoints_disabled_total         endpoints disabled for that reason
//   invoicing_webhook_delivery_lag_seconds             from an event to its successful delivery
// and two gauges read from the database at each scrape (the same on every instance):
//   invoicing_webhook_deliveries_pending               deliveries waiting (enabled endpoints)
//   invoicing_webhook_oldest_due_seconds               how late the oldest due one is (0: none)
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type Database, queryRows, sql } from '../db/client.js';

export const webhookRegistry = new Registry();

export const LAG_BUCKETS_SECONDS = [1, 5, 30, 60, 300, 1800, 3600, 21_600, 86_400, 259_200] as const;

const attempts = new Counter({
  name: 'invoicing_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome (succeeded: a 2xx answer; failed: anything else)',
  labelNames: ['outcome'] as const,
  registers: [webhookRegistry],
});
// Both series exist from the start, so that a rate of failures is 0 rather than absent.
attempts.inc({ outcome: 'succeeded' }, 0);
attempts.inc({ outcome: 'failed' }, 0);

const exhausted = new Counter({
  name: 'invoicing_webhook_deliveries_exhausted_total',
  help: 'Webhook deliveries given up after their last retry failed',
  registers: [webhookRegistry],
});

const endpointsDisabled = new Counter({
  name: 'invoicing_webhook_endpoints_disabled_total',
  help: 'Webhook endpoints disabled because a delivery was given up',
  registers: [webhookRegistry],
});

const lag = new Histogram({
  name: 'invoicing_webhook_delivery_lag_seconds',
  help: 'Time from an event to its successful delivery',
  buckets: [...LAG_BUCKETS_SECONDS],
  registers: [webhookRegistry],
});

let backlogSource: Database | null = null;
let backlogReading: Promise<Backlog | null> | null = null;

/** One read of the database for both gauges of a scrape. */
function readBacklog(): Promise<Backlog | null> {
  if (!backlogSource) return Promise.resolve(null);
  backlogReading ??= deliveryBacklog(backlogSource)
    .catch(() => null)
    .finally(() => {
      backlogReading = null;
    });
  return backlogReading;
}

new Gauge({
  name: 'invoicing_webhook_deliveries_pending',
  help: 'Webhook deliveries waiting for an attempt or a retry (endpoints enabled), read from the database',
  registers: [webhookRegistry],
  async collect() {
    const backlog = await readBacklog();
    if (backlog) this.set(backlog.pending);
  },
});

new Gauge({
  name: 'invoicing_webhook_oldest_due_seconds',
  help: 'How late the oldest due webhook delivery is, in seconds (0 when none is due), read from the database',
  registers: [webhookRegistry],
  async collect() {
    const backlog = await readBacklog();
    if (backlog) this.set(backlog.oldestDueSeconds);
  },
});

/** The gauges of the backlog read this database (the operations server calls it). */
export function watchBacklog(db: Database): void {
  backlogSource = db;
}

export function countAttempt(succeeded: boolean): void {
  attempts.inc({ outcome: succeeded ? 'succeeded' : 'failed' });
}

export function observeLag(seconds: number): void {
  lag.observe(Math.max(0, seconds));
}

export function countExhausted(endpointDisabled: boolean): void {
  exhausted.inc();
  if (endpointDisabled) endpointsDisabled.inc();
}

export interface WebhookCounts {
  succeeded: number;
  failed: number;
  exhausted: number;
  endpointsDisabled: number;
  lagCount: number;
  lagSumSeconds: number;
}

/** The counters now (for a test, or a look from the command line). */
export async function metricsSnapshot(): Promise<WebhookCounts> {
  const byOutcome = (await attempts.get()).values;
  const outcome = (name: string) => byOutcome.find((value) => value.labels.outcome === name)?.value ?? 0;
  const lagValues = (await lag.get()).values;
  return {
    succeeded: outcome('succeeded'),
    failed: outcome('failed'),
    exhausted: (await exhausted.get()).values[0]?.value ?? 0,
    endpointsDisabled: (await endpointsDisabled.get()).values[0]?.value ?? 0,
    lagCount:
      lagValues.find((value) => value.metricName === 'invoicing_webhook_delivery_lag_seconds_count')?.value ??
      0,
    lagSumSeconds:
      lagValues.find((value) => value.metricName === 'invoicing_webhook_delivery_lag_seconds_sum')?.value ??
      0,
  };
}

export interface Backlog {
  pending: number;
  oldestDueSeconds: number;
}

/**
 * Deliveries waiting, and how late the oldest due one is, in seconds (0 when none is due).
 * Deliveries of disabled endpoints are not counted.
 */
export async function deliveryBacklog(db: Database): Promise<Backlog> {
  const [row] = await queryRows<{ pending: number | string; oldest: number | string | null }>(
    db,
    sql`select count(*) as pending,
               extract(epoch from now() - min(d.next_attempt_at) filter (where d.next_attempt_at <= now())) as oldest
        from webhook_deliveries d
        join webhook_endpoints e on e.id = d.endpoint_id
        where d.status = 'pending' and e.enabled`,
  );
  return { pending: Number(row?.pending ?? 0), oldestDueSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}
