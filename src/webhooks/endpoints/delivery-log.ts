// The delivery log of one endpoint, for `webhooks deliveries`: its attempts, newest first, and
// the deliveries still waiting for their first attempt.
import { and, desc, eq } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import { webhookAttempts, webhookDeliveries, webhookEvents } from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';
import { requireEndpoint } from './endpoint.js';

export interface DeliveryLogRow {
  event_id: string;
  type: string;
  delivery_id: number;
  /** 1 for the first attempt; 0 for a delivery not attempted yet. */
  attempt: number;
  /** succeeded / failed for an attempt; pending for one not attempted yet. */
  status: 'succeeded' | 'failed' | 'pending';
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  at: string;
  /** When the delivery is tried next, while it is still pending. */
  next_attempt_at: string | null;
}

export async function deliveryLog(
  { db, timeZone }: ActingContext,
  endpointId: number,
  options: { failedOnly: boolean; limit: number },
): Promise<DeliveryLogRow[]> {
  await requireEndpoint(db, endpointId);
  const attempts = await db
    .select({
      publicId: webhookEvents.publicId,
      type: webhookEvents.type,
      deliveryId: webhookAttempts.deliveryId,
      attempt: webhookAttempts.attempt,
      succeeded: webhookAttempts.succeeded,
      statusCode: webhookAttempts.statusCode,
      latencyMs: webhookAttempts.latencyMs,
      error: webhookAttempts.error,
      at: webhookAttempts.createdAt,
      deliveryStatus: webhookDeliveries.status,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookAttempts)
    .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookAttempts.endpointId, endpointId),
        options.failedOnly ? eq(webhookAttempts.succeeded, false) : undefined,
      ),
    )
    .orderBy(desc(webhookAttempts.id))
    .limit(options.limit);
  const rows: DeliveryLogRow[] = attempts.map((row) => ({
    event_id: row.publicId,
    type: row.type,
    delivery_id: row.deliveryId,
    attempt: row.attempt,
    status: row.succeeded ? 'succeeded' : 'failed',
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    error: row.error,
    at: formatTimestamp(row.at, timeZone),
    next_attempt_at: row.deliveryStatus === 'pending' ? formatTimestamp(row.nextAttemptAt, timeZone) : null,
  }));
  if (options.failedOnly) return rows;
  // Deliveries still waiting for their first attempt come first (they are the newest).
  const waiting = await db
    .select({
      publicId: webhookEvents.publicId,
      type: webhookEvents.type,
      deliveryId: webhookDeliveries.id,
      createdAt: webhookDeliveries.createdAt,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.status, 'pending'),
        eq(webhookDeliveries.attempts, 0),
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(options.limit);
  const queued: DeliveryLogRow[] = waiting.map((row) => ({
    event_id: row.publicId,
    type: row.type,
    delivery_id: row.deliveryId,
    attempt: 0,
    status: 'pending',
    status_code: null,
    latency_ms: null,
    error: null,
    at: formatTimestamp(row.createdAt, timeZone),
    next_attempt_at: formatTimestamp(row.nextAttemptAt, timeZone),
  }));
  return [...queued, ...rows].slice(0, options.limit);
}
