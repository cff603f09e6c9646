// Counters of webhook deliveries, kept in the process. Plain numbers so that a metrics endpoint
// (prom-client, or anything else) can read them without this module depending on it:
//   attempts / succeeded / failed   every HTTP attempt and its outcome
//   exhausted                       deliveries given up after the last retry
//   endpointsDisabled               endpoints the worker disabled for that reason
//   lag*                            seconds from an event's creation to its successful delivery
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
