// The transactional outbox. A write that partners hear about calls `recordEvent` with the
// transaction of its change: the event row and one delivery per subscribed endpoint commit (or
// roll back) together with the change, so there is never an event without its change nor a change
// without its event. The worker (src/webhooks/worker.ts) delivers them afterwards.
//
// Nothing is written when no enabled endpoint of the company wants the type (most writes): then
// the cost is one indexed query and the resource is not even read.
import { randomBytes } from 'node:crypto';
import { type AnyColumn, and, eq, type Placeholder, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import type { Actor, CompanyContext } from '../context.js';
import { queryRows } from '../db/client.js';
import { companies, webhookDeliveries, webhookEndpoints, webhookEvents } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { activeTraceparent } from '../tracing/propagation.js';
import { ALL_EVENTS, type EventType, type PING_EVENT } from './event-types.js';

/** The resource as the API's single GET returns it, or a function that reads it so (lazily). */
export type EventData = object | (() => Promise<object | null>);

/**
 * Who caused an event, as its payload's `cause` says (openapi.json: `EventCause`): the API key (its
 * id and last 4 characters, never the secret) with the write's request id and Idempotency-Key, the
 * operator and the command, or the part of the service that acted.
 */
export type EventCause =
  | {
      kind: 'api_key';
      api_key_id: number;
      api_key_last4: string;
      request_id: string;
      /** Every write of the API carries one (step 9 of the pipeline refuses it otherwise). */
      idempotency_key: string;
    }
  | { kind: 'operator'; operator: string; command: string }
  | { kind: 'system'; name: string };

export function causeOf(actor: Actor): EventCause {
  switch (actor.kind) {
    case 'api_key':
      // Only writes record events, and a write without the header is refused before it runs.
      if (actor.idempotencyKey === null) throw new Error('an API write without its Idempotency-Key');
      return {
        kind: 'api_key',
        api_key_id: actor.apiKeyId,
        api_key_last4: actor.last4,
        request_id: actor.requestId,
        idempotency_key: actor.idempotencyKey,
      };
    case 'operator':
      return { kind: 'operator', operator: actor.name, command: actor.command };
    case 'system':
      return { kind: 'system', name: actor.name };
  }
}

export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

/** The body every attempt sends, byte for byte. */
export function eventPayload(
  id: string,
  type: string,
  createdAt: Date,
  data: unknown,
  cause: EventCause,
  timeZone: string,
): string {
  return JSON.stringify({ id, type, created_at: formatTimestamp(createdAt, timeZone), data, cause });
}

interface EventOptions {
  /** The first attempt waits this long (a ping that `webhooks test` attempts itself first). */
  firstAttemptInMs?: number;
  /** An event for this endpoint only (a ping, a sample of `webhooks test`): never resent to others. */
  onlyEndpointId?: number;
}

async function insertEvent(
  context: CompanyContext,
  type: string,
  data: object,
  endpointIds: readonly number[],
  options: EventOptions = {},
): Promise<{ eventId: string; deliveryIds: number[] }> {
  const { db, companyId, timeZone, actor } = context;
  const publicId = newEventId();
  const createdAt = new Date();
  const [event] = await db
    .insert(webhookEvents)
    .values({
      publicId,
      companyId,
      type,
      payload: eventPayload(publicId, type, createdAt, data, causeOf(actor), timeZone),
      requestId: actor.kind === 'api_key' ? actor.requestId : null,
      // The write's trace, with tracing on: its deliveries' attempts join it (src/webhooks/worker.ts).
      traceparent: activeTraceparent(),
      onlyEndpointId: options.onlyEndpointId ?? null,
      createdAt,
    })
    .returning({ id: webhookEvents.id });
  if (!event) throw new Error('event insert returned no row');
  const nextAttemptAt = sql`now() + ${options.firstAttemptInMs ?? 0} * interval '1 millisecond'`;
  const deliveries = await db
    .insert(webhookDeliveries)
    .values(endpointIds.map((endpointId) => ({ eventId: event.id, endpointId, companyId, nextAttemptAt })))
    .returning({ id: webhookDeliveries.id });
  return { eventId: publicId, deliveryIds: deliveries.map((delivery) => delivery.id) };
}

/**
 * Whether an endpoint's subscription (its `events` column) takes `type`: the type itself, its
 * family (`invoice.*`) or every type (`*`). The one rule, for recording and for resending alike.
 */
export function subscribesTo(type: string | SQLWrapper | AnyColumn): SQL {
  const events = webhookEndpoints.events;
  return sql`(${type}::text = any(${events}) or ${ALL_EVENTS} = any(${events})
    or split_part(${type}::text, '.', 1) || '.*' = any(${events}))`;
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
    subscribesTo(type),
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
 * transaction, company, time zone and actor: who caused the event (an API key and its request, an
 * operator and the command, or the system), written into the payload as its `cause`.
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
 * An event for one endpoint only, whatever it subscribes to (`webhooks test`): a `ping` naming the
 * endpoint, or a sample of a type built from the company's real data. `webhooks test` attempts it
 * at once itself; the worker only takes it after `holdMs` (if that command died). Its cause is the
 * context's actor.
 */
export async function recordEventForEndpoint(
  context: CompanyContext,
  endpointId: number,
  type: EventType | typeof PING_EVENT,
  data: object,
  holdMs: number,
): Promise<{ eventId: string; deliveryId: number }> {
  const { eventId, deliveryIds } = await insertEvent(context, type, data, [endpointId], {
    firstAttemptInMs: holdMs,
    onlyEndpointId: endpointId,
  });
  return { eventId, deliveryId: deliveryIds[0] as number };
}

/** The data of a `ping` to an endpoint. */
export function pingData(endpointId: number): object {
  return {
    endpoint_id: endpointId,
    message: 'Teste do webhook: se recebeu isto, o endpoint está configurado.',
  };
}
