// `webhooks resend`: one event again to the endpoints that had it, or a window of events again to
// one endpoint. Either way each event keeps its id, and a delivery still pending is made due now
// rather than doubled.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import { type Database, runInTransaction } from '../../db/client.js';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';
import { PING_EVENT } from '../event-types.js';
import { subscribesTo } from '../events.js';
import { requireEndpoint, WebhookRefusal } from './endpoint.js';

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
