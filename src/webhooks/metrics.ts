// Counters of webhook deliveries, kept in the process. Plain numbers so that a metrics endpoint
// (prom-client, or anything else) can read them without this module depending on it:
//   attempts / succeeded / failed   every HTTP attempt and its outcome
//   exhausted                       deliveries given up after the last retry
//   endpointsDisabled               endpoints the worker disabled for that reason
//   lag*                            seconds from an event's creation to its successful delivery
// and `deliveryBacklog`, read from the database when scraped: deliveries waiting, oldest one's lateness.
import { type Database, queryRows, sql } from '../db/client.js';

export interface WebhookMetrics {
  attempts: number;
  succeeded: number;
  failed: number;
  exhausted: number;
  endpointsDisabled: number;
  lagSecondsSum: number;
  lagSecondsCount: number;
  lagSecondsMax: number;
  /** Successful deliveries by lag: count with lag <= each bound (seconds), cumulative. */
  lagBuckets: Record<string, number>;
}

export const LAG_BUCKETS_SECONDS = [1, 5, 30, 60, 300, 1800, 3600, 21_600, 86_400, 259_200] as const;

function fresh(): WebhookMetrics {
  return {
    attempts: 0,
    succeeded: 0,
    failed: 0,
    exhausted: 0,
    endpointsDisabled: 0,
    lagSecondsSum: 0,
    lagSecondsCount: 0,
    lagSecondsMax: 0,
    lagBuckets: Object.fromEntries([...LAG_BUCKETS_SECONDS.map((b) => [String(b), 0]), ['+Inf', 0]]),
  };
}

export const webhookMetrics: WebhookMetrics = fresh();

export function countAttempt(succeeded: boolean): void {
  webhookMetrics.attempts++;
  if (succeeded) webhookMetrics.succeeded++;
  else webhookMetrics.failed++;
}

export function observeLag(seconds: number): void {
  const lag = Math.max(0, seconds);
  webhookMetrics.lagSecondsSum += lag;
  webhookMetrics.lagSecondsCount++;
  webhookMetrics.lagSecondsMax = Math.max(webhookMetrics.lagSecondsMax, lag);
  for (const bound of LAG_BUCKETS_SECONDS) {
    if (lag <= bound)
      webhookMetrics.lagBuckets[String(bound)] = (webhookMetrics.lagBuckets[String(bound)] ?? 0) + 1;
  }
  webhookMetrics.lagBuckets['+Inf'] = (webhookMetrics.lagBuckets['+Inf'] ?? 0) + 1;
}

export function countExhausted(endpointDisabled: boolean): void {
  webhookMetrics.exhausted++;
  if (endpointDisabled) webhookMetrics.endpointsDisabled++;
}

/** A copy of the counters (for an exporter, or a test). */
export function metricsSnapshot(): WebhookMetrics {
  return { ...webhookMetrics, lagBuckets: { ...webhookMetrics.lagBuckets } };
}

/**
 * Read from the database at scrape time (gauges): deliveries waiting, and how late the oldest due
 * one is, in seconds (0 when none is due). Deliveries of disabled endpoints are not counted.
 */
export async function deliveryBacklog(db: Database): Promise<{ pending: number; oldestDueSeconds: number }> {
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
