// The transactional outbox. A write that partners hear about calls `recordEvent` with the
// transaction of its change: the event row and one delivery per subscribed endpoint commit (or
// roll back) together with the change, so there is never an event without its change nor a change
// without its event. The worker (src/webhooks/worker.ts) delivers them afterwards.
//
// Nothing is written when no enabled endpoint of the company wants the type (most writes): then
// the cost is one indexed query and the resource is not even read.
import { randomBytes } from 'node:crypto';
import { and, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import type { CompanyContext } from '../context.js';
import { queryRows } from '../db/client.js';
import { companies, webhookDeliveries, webhookEndpoints, webhookEvents } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { ALL_EVENTS, type EventType, PING_EVENT } from './event-types.js';

/** The resource as the API's single GET returns it, or a function that reads it so (lazily). */
export type EventData = object | (() => Promise<object | null>);

export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

/** The body every attempt sends, byte for byte. */
export function eventPayload(
  id: string,
  type: string,
  createdAt: Date,
  data: unknown,
  timeZone: string,
): string {
  return JSON.stringify({ id, type, created_at: formatTimestamp(createdAt, timeZone), data });
}

async function insertEvent(
  context: CompanyContext,
  type: string,
  data: object,
  endpointIds: readonly number[],
  firstAttemptInMs = 0,
): Promise<{ eventId: string; deliveryIds: number[] }> {
  const { db, companyId, timeZone } = context;
  const publicId = newEventId();
  const createdAt = new Date();
  const [event] = await db
    .insert(webhookEvents)
    .values({
      publicId,
      companyId,
      type,
      payload: eventPayload(publicId, type, createdAt, data, timeZone),
      createdAt,
    })
    .returning({ id: webhookEvents.id });
  if (!event) throw new Error('event insert returned no row');
  const nextAttemptAt = sql`now() + ${firstAttemptInMs} * interval '1 millisecond'`;
  const deliveries = await db
    .insert(webhookDeliveries)
    .values(endpointIds.map((endpointId) => ({ eventId: event.id, endpointId, companyId, nextAttemptAt })))
    .returning({ id: webhookDeliveries.id });
  return { eventId: publicId, deliveryIds: deliveries.map((delivery) => delivery.id) };
}

/**
 * Which endpoints hear `type`: the enabled ones of the company that subscribe to it (none while
 * the company's partner API is disabled). A condition on webhook_endpoints joined with companies.
 */
function hears(companyId: number | Placeholder, type: EventType | Placeholder): SQL {
  return and(
    eq(webhookEndpoints.companyId, companyId),
    eq(webhookEndpoints.enabled, true),
    eq(companies.partnerApiEnabled, true),
    sql`(${type} = any(${webhookEndpoints.events}) or ${ALL_EVENTS} = any(${webhookEndpoints.events}))`,
  )!;
}

/**
 * The ids of the endpoints that hear `type`, as a query to embed in a statement of the caller's
 * (the values may be placeholders of a prepared statement).
 */
export function subscribedEndpointIds(companyId: number | Placeholder, type: EventType | Placeholder) {
  return new QueryBuilder()
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .innerJoin(companies, eq(companies.id, webhookEndpoints.companyId))
    .where(hears(companyId, type));
}

/**
 * Records an event of the company in the caller's transaction, with a delivery for each enabled
 * endpoint of the company that subscribes to the type (none while the company's partner API is
 * disabled). Returns the event id, or null when nobody listens. `context` is the write's own: its
 * transaction, company, time zone and actor (who caused the event: an API key and its request, an
 * operator and the command, or the system); the payload does not carry the actor (yet).
 */
export async function recordEvent(
  context: CompanyContext,
  type: EventType,
  data: EventData,
): Promise<string | null> {
  const endpoints = await queryRows<{ id: number }>(
    context.db,
    subscribedEndpointIds(context.companyId, type).getSQL(),
  );
  return recordEventFor(
    context,
    type,
    endpoints.map((endpoint) => endpoint.id),
    data,
  );
}

/**
 * `recordEvent` for a caller that already read, in the same transaction, the subscribed endpoints
 * (`subscribedEndpointIds`) within a statement of its own: one round trip less.
 */
export async function recordEventFor(
  context: CompanyContext,
  type: EventType,
  endpointIds: readonly number[],
  data: EventData,
): Promise<string | null> {
  if (endpointIds.length === 0) return null;
  const resource = typeof data === 'function' ? await data() : data;
  if (!resource) {
    throw new Error(`the resource of a ${type} event of company ${context.companyId} was not found`);
  }
  const { eventId } = await insertEvent(
    context,
    type,
    resource,
    [...endpointIds].sort((a, b) => a - b),
  );
  return eventId;
}

/**
 * A `ping` for one endpoint only (`webhooks test`): its data names the endpoint. `webhooks test`
 * attempts it at once itself; the worker only takes it after `holdMs` (if that command died).
 */
export async function recordPing(
  context: CompanyContext,
  endpointId: number,
  holdMs: number,
): Promise<{ eventId: string; deliveryId: number }> {
  const { eventId, deliveryIds } = await insertEvent(
    context,
    PING_EVENT,
    { endpoint_id: endpointId, message: 'Teste do webhook: se recebeu isto, o endpoint está configurado.' },
    [endpointId],
    holdMs,
  );
  return { eventId, deliveryId: deliveryIds[0] as number };
}
