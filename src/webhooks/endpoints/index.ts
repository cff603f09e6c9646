// Webhook endpoints: a company's URL, the event types it wants, its signing secret. Set up by the
// operator (bin/invoicing webhooks ...); the partner API itself has no route for them.
// - The secret is returned when the endpoint is created or its secret rotated, never again.
// - Rotating keeps the previous secret signing for 24 hours (both signatures are sent), so the
//   partner can switch without losing a delivery; a second rotation within that time drops the
//   oldest secret.
// - Enabling re-checks the URL (the addresses behind a name may have changed).
// - Times are shown in the context's time zone (TZ_NAME) with their offset, like everywhere else.
//
// Split by what each part does; this file still holds the reads and resends:
//   endpoint.ts  the stored row and its summary, the refusal, one endpoint read by id
//   changes.ts   create, update, enable and disable (the URL checked), the event list read
//   secrets.ts   rotating the secret, and the secrets that sign now
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import { type Database, queryRows, runInTransaction } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';
import { PING_EVENT } from '../event-types.js';
import { subscribesTo } from '../events.js';
import { type EndpointSummary, requireEndpoint, summaryOf, WebhookRefusal } from './endpoint.js';

export {
  createEndpoint,
  disableAfterFailures,
  parseEventList,
  setEndpointEnabled,
  updateEndpoint,
} from './changes.js';
export { type EndpointSummary, requireEndpoint, WebhookRefusal } from './endpoint.js';
export { PREVIOUS_SECRET_HOURS, rotateSecret, signingSecrets } from './secrets.js';

/** How an endpoint is doing, from its delivery log (`webhooks list`). */
export interface EndpointHealth {
  /** The latest attempt that succeeded. */
  last_success_at: string | null;
  /** The first failed attempt since the latest success, while the latest attempt failed. */
  failing_since: string | null;
  /** The latest failed attempt's error, and when it happened. */
  last_error: string | null;
  last_error_at: string | null;
  /** Deliveries not done yet: due, waiting for a retry, or held while the endpoint is disabled. */
  deliveries_pending: number;
}

interface HealthRow {
  id: number;
  last_success_at: Date | string | null;
  failing_since: Date | string | null;
  last_error: string | null;
  last_error_at: Date | string | null;
  deliveries_pending: number;
}

/**
 * The health of each endpoint of the company, in one statement: the latest success and the latest
 * failure of each are one index probe (webhook_attempts_endpoint_outcome_idx), the pending count a
 * scan of the endpoint's pending deliveries (webhook_deliveries_pending_idx). Each probe orders by
 * its index's whole key: ordered by id alone, PostgreSQL walked the primary key backwards over every
 * attempt of every endpoint when one had none of that outcome (383 ms at a million attempts,
 * 0.2 ms this way).
 */
async function healthOf(db: Database, companyId: number): Promise<Map<number, HealthRow>> {
  const rows = await queryRows<HealthRow>(
    db,
    sql`select e.id, s.created_at as last_success_at, f.created_at as last_error_at, f.error as last_error,
          case when f.id > coalesce(s.id, 0) then (
            select a.created_at from webhook_attempts a
            where a.endpoint_id = e.id and a.id > coalesce(s.id, 0) order by a.endpoint_id, a.id limit 1
          ) end as failing_since,
          (select count(*)::int from webhook_deliveries d
            where d.endpoint_id = e.id and d.status = 'pending') as deliveries_pending
        from webhook_endpoints e
        left join lateral (
          select a.id, a.created_at from webhook_attempts a
          where a.endpoint_id = e.id and a.succeeded = true
          order by a.endpoint_id desc, a.succeeded desc, a.id desc limit 1
        ) s on true
        left join lateral (
          select a.id, a.created_at, a.error from webhook_attempts a
          where a.endpoint_id = e.id and a.succeeded = false
          order by a.endpoint_id desc, a.succeeded desc, a.id desc limit 1
        ) f on true
        where e.company_id = ${companyId}`,
  );
  return new Map(rows.map((row) => [Number(row.id), row]));
}

export async function listEndpoints(
  { db, timeZone }: ActingContext,
  companyId: number,
): Promise<(EndpointSummary & EndpointHealth)[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.companyId, companyId))
    .orderBy(asc(webhookEndpoints.id));
  const health = await healthOf(db, companyId);
  const shown = (at: Date | string | null | undefined) =>
    at ? formatTimestamp(at instanceof Date ? at : new Date(at), timeZone) : null;
  return rows.map((row) => {
    const of = health.get(row.id);
    return {
      ...summaryOf(row, timeZone),
      last_success_at: shown(of?.last_success_at),
      failing_since: shown(of?.failing_since),
      last_error: of?.last_error ?? null,
      last_error_at: shown(of?.last_error_at),
      deliveries_pending: Number(of?.deliveries_pending ?? 0),
    };
  });
}

// ---- the delivery log, for `webhooks deliveries` and `webhooks resend` ----

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

/**
 * Sends an event again to the enabled endpoints that had it: a delivery still pending is made due
 * now, otherwise a new delivery starts (with a fresh retry schedule). The event keeps its id, so
 * receivers that already have it can dedupe by `webhook-id`.
 */
export async function resendEvent(
  db: Database,
  publicId: string,
): Promise<{ event_id: string; type: string; deliveries: { endpoint_id: number; delivery_id: number }[] }> {
  return runInTransaction(db, async (tx) => {
    const [event] = await tx.select().from(webhookEvents).where(eq(webhookEvents.publicId, publicId));
    if (!event) throw new WebhookRefusal({ key: 'webhook.event_missing', params: { id: publicId } });
    const had = await tx
      .selectDistinct({ endpointId: webhookDeliveries.endpointId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, event.id));
    const endpointIds = had.map((row) => row.endpointId);
    const endpoints =
      endpointIds.length === 0
        ? []
        : await tx
            .select({ id: webhookEndpoints.id })
            .from(webhookEndpoints)
            .where(
              and(
                inArray(webhookEndpoints.id, endpointIds),
                eq(webhookEndpoints.companyId, event.companyId),
                eq(webhookEndpoints.enabled, true),
              ),
            )
            .orderBy(asc(webhookEndpoints.id));
    if (endpoints.length === 0) {
      throw new WebhookRefusal(
        endpointIds.length === 0
          ? { key: 'webhook.event_unaddressed', params: { id: publicId } }
          : {
              key: 'webhook.event_endpoints_disabled',
              params: { id: publicId, endpoints: endpointIds.join(', ') },
            },
      );
    }
    const deliveries: { endpoint_id: number; delivery_id: number }[] = [];
    for (const { id: endpointId } of endpoints) {
      const [pending] = await tx
        .update(webhookDeliveries)
        .set({ nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
        .where(
          and(
            eq(webhookDeliveries.eventId, event.id),
            eq(webhookDeliveries.endpointId, endpointId),
            eq(webhookDeliveries.status, 'pending'),
            // One in flight now (leased) may succeed in a moment: the resend is a delivery of its own.
            sql`(${webhookDeliveries.leasedUntil} is null or ${webhookDeliveries.leasedUntil} <= now())`,
          ),
        )
        .returning({ id: webhookDeliveries.id });
      const row =
        pending ??
        (
          await tx
            .insert(webhookDeliveries)
            .values({ eventId: event.id, endpointId, companyId: event.companyId })
            .returning({ id: webhookDeliveries.id })
        )[0];
      if (!row) throw new Error('delivery insert returned no row');
      deliveries.push({ endpoint_id: endpointId, delivery_id: row.id });
    }
    return { event_id: event.publicId, type: event.type, deliveries };
  });
}

/** At most this many events are resent by one `webhooks resend --endpoint` (the rest: run it again). */
export const MAX_RESEND_WINDOW = 1000;

export interface WindowResend {
  endpoint_id: number;
  company_id: number;
  since: string;
  /** The end of the window; null: up to now. */
  until: string | null;
  /** How many events were queued again (each keeps its id). */
  resent: number;
  /** The first and last of them. */
  first_event_id: string | null;
  last_event_id: string | null;
  /** The window held more than MAX_RESEND_WINDOW events: resend again from `next_since`. */
  more: boolean;
  next_since: string | null;
}

/**
 * Sends again to one endpoint every event of its company recorded in [since, until) whose type it
 * subscribes to now (pings and other endpoints' samples never), oldest first, at most
 * MAX_RESEND_WINDOW: a delivery still pending is made due now, otherwise a new one starts. Each
 * event keeps its id and body, so a receiver that has it already drops the repeat.
 */
export async function resendWindow(
  { db, timeZone }: ActingContext,
  endpointId: number,
  window: { since: Date; until: Date | null },
): Promise<WindowResend> {
  return runInTransaction(db, async (tx) => {
    const endpoint = await requireEndpoint(tx, endpointId);
    if (!endpoint.enabled) {
      throw new WebhookRefusal({ key: 'refused.endpoint_disabled', params: { id: endpointId } });
    }
    const events = await tx
      .select({ id: webhookEvents.id, publicId: webhookEvents.publicId, createdAt: webhookEvents.createdAt })
      .from(webhookEvents)
      // The endpoint's own company only: the join is on both the id and the company.
      .innerJoin(
        webhookEndpoints,
        and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.companyId, webhookEvents.companyId)),
      )
      .where(
        and(
          eq(webhookEvents.companyId, endpoint.companyId),
          sql`${webhookEvents.createdAt} >= ${window.since.toISOString()}::timestamptz`,
          window.until
            ? sql`${webhookEvents.createdAt} < ${window.until.toISOString()}::timestamptz`
            : undefined,
          sql`${webhookEvents.onlyEndpointId} is null`,
          sql`${webhookEvents.type} <> ${PING_EVENT}`,
          subscribesTo(webhookEvents.type),
        ),
      )
      .orderBy(asc(webhookEvents.createdAt), asc(webhookEvents.id))
      .limit(MAX_RESEND_WINDOW + 1);
    const taken = events.slice(0, MAX_RESEND_WINDOW);
    const next = events[MAX_RESEND_WINDOW];
    if (taken.length > 0) {
      const ids = taken.map((event) => event.id);
      const madeDue = await tx
        .update(webhookDeliveries)
        .set({ nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
        .where(
          and(
            eq(webhookDeliveries.endpointId, endpointId),
            inArray(webhookDeliveries.eventId, ids),
            eq(webhookDeliveries.status, 'pending'),
            // One in flight now (leased) may succeed in a moment: the resend is a delivery of its own.
            sql`(${webhookDeliveries.leasedUntil} is null or ${webhookDeliveries.leasedUntil} <= now())`,
          ),
        )
        .returning({ eventId: webhookDeliveries.eventId });
      const due = new Set(madeDue.map((row) => row.eventId));
      const fresh = taken.filter((event) => !due.has(event.id));
      if (fresh.length > 0) {
        await tx
          .insert(webhookDeliveries)
          .values(fresh.map((event) => ({ eventId: event.id, endpointId, companyId: endpoint.companyId })));
      }
    }
    const shown = (at: Date) => formatTimestamp(at, timeZone);
    return {
      endpoint_id: endpointId,
      company_id: endpoint.companyId,
      since: shown(window.since),
      until: window.until ? shown(window.until) : null,
      resent: taken.length,
      first_event_id: taken[0]?.publicId ?? null,
      last_event_id: taken.at(-1)?.publicId ?? null,
      more: next !== undefined,
      next_since: next ? shown(next.createdAt) : null,
    };
  });
}
