// `requests show`: one request by the X-Request-Id the partner received (or a trace id), with what
// it created or replayed (its idempotency record), the events it caused and what became of their
// deliveries. The request names its company, and whatever it links to is read within that company
// only.
import { and, asc, desc, eq, inArray, lte } from 'drizzle-orm';
import { API_PREFIX } from '../../app-constants.js';
import type { ActingContext } from '../../context.js';
import {
  companies,
  idempotencyKeys,
  requestLog,
  webhookAttempts,
  webhookDeliveries,
  webhookEvents,
} from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';
import type { RawArgs } from '../arguments.js';
import { ArgumentError, OperationError } from '../errors.js';
import { asLoggedRequest, type LoggedRequest, type RequestLogRow, TRACE_ID } from './logged-request.js';

const MINUTE_MS = 60_000;

export interface RequestRecordShown {
  idempotency_key: string;
  /** `completed`, or `in_flight` while the write runs. */
  state: string;
  response_status: number | null;
  /** What the write created or changed: `{type: "customer", id: 42}`, when it answered one. */
  resource: { type: string; id: number } | null;
  /** The request that ran the write (this one, or the one this request replayed). */
  created_by_request_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface CausedEvent {
  event_id: string;
  type: string;
  created_at: string;
  deliveries: {
    delivery_id: number;
    endpoint_id: number;
    status: string;
    attempts: {
      attempt: number;
      succeeded: boolean;
      status_code: number | null;
      latency_ms: number;
      error: string | null;
      at: string;
    }[];
  }[];
}

export interface ShownRequest {
  request: LoggedRequest & { company_name: string | null };
  record: RequestRecordShown | null;
  events: CausedEvent[];
}

const RESOURCE_OF_ROUTE: Record<string, string> = {
  customers: 'customer',
  products: 'product',
  invoices: 'invoice',
};

/** `customer` for `/api/v1/partner/customers/:id`. */
function resourceTypeOf(template: string): string | null {
  const segment = template.slice(API_PREFIX.length).split('/')[1] ?? '';
  return RESOURCE_OF_ROUTE[segment] ?? null;
}

/** The resource a stored answer carries (`{"data": {"id": 42, ...}}`). */
function resourceIn(body: string | null, type: string | null): { type: string; id: number } | null {
  if (!body || !type) return null;
  try {
    const id = (JSON.parse(body) as { data?: { id?: unknown } }).data?.id;
    return typeof id === 'number' ? { type, id } : null;
  } catch {
    return null;
  }
}

/**
 * The idempotency record of a write (kept 24 hours): what it answered, and which request ran it.
 * A record made after the request (its key reused once it expired) is not this request's.
 */
async function recordOf(context: ActingContext, row: RequestLogRow): Promise<RequestRecordShown | null> {
  if (!row.idempotencyKey || (row.method !== 'POST' && row.method !== 'PUT')) return null;
  const { db, timeZone } = context;
  const [record] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.apiKeyId, row.apiKeyId),
        eq(idempotencyKeys.companyId, row.companyId),
        eq(idempotencyKeys.key, row.idempotencyKey),
      ),
    );
  const end = row.at.getTime() + row.durationUs / 1000;
  if (!record || record.createdAt.getTime() > end + MINUTE_MS) return null;
  // The request that ran the write: this one, unless it replayed an earlier one's answer.
  const [creator] = row.replayed
    ? await db
        .select({ requestId: requestLog.requestId })
        .from(requestLog)
        .where(
          and(
            eq(requestLog.apiKeyId, row.apiKeyId),
            eq(requestLog.companyId, row.companyId),
            eq(requestLog.idempotencyKey, row.idempotencyKey),
            eq(requestLog.replayed, false),
            lte(requestLog.at, row.at),
          ),
        )
        .orderBy(desc(requestLog.at))
        .limit(1)
    : [{ requestId: row.status === record.responseStatus ? row.requestId : null }];
  return {
    idempotency_key: record.key,
    state: record.state,
    response_status: record.responseStatus,
    resource: resourceIn(record.responseBody, resourceTypeOf(row.route)),
    created_by_request_id: creator?.requestId ?? null,
    created_at: formatTimestamp(record.createdAt, timeZone),
    expires_at: formatTimestamp(record.expiresAt, timeZone),
  };
}

/**
 * The events a request caused: those of its company recorded with its id (`webhook_events.request_id`,
 * set from the API key actor in the write's own transaction, the same as the payload's
 * `cause.request_id`; indexed).
 */
async function eventsCausedBy(
  context: ActingContext,
  companyId: number,
  requestId: string,
): Promise<CausedEvent[]> {
  const { db, timeZone } = context;
  const events = await db
    .select({
      id: webhookEvents.id,
      public_id: webhookEvents.publicId,
      type: webhookEvents.type,
      created_at: webhookEvents.createdAt,
    })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.requestId, requestId), eq(webhookEvents.companyId, companyId)))
    .orderBy(asc(webhookEvents.id));
  if (events.length === 0) return [];
  const eventIds = events.map((event) => event.id);
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.eventId, eventIds), eq(webhookDeliveries.companyId, companyId)))
    .orderBy(asc(webhookDeliveries.id));
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .select()
          .from(webhookAttempts)
          .where(
            inArray(
              webhookAttempts.deliveryId,
              deliveries.map((delivery) => delivery.id),
            ),
          )
          .orderBy(asc(webhookAttempts.id));
  return events.map((event) => ({
    event_id: event.public_id,
    type: event.type,
    created_at: formatTimestamp(event.created_at, timeZone),
    deliveries: deliveries
      .filter((delivery) => delivery.eventId === event.id)
      .map((delivery) => ({
        delivery_id: delivery.id,
        endpoint_id: delivery.endpointId,
        status: delivery.status,
        attempts: attempts
          .filter((attempt) => attempt.deliveryId === delivery.id)
          .map((attempt) => ({
            attempt: attempt.attempt,
            succeeded: attempt.succeeded,
            status_code: attempt.statusCode,
            latency_ms: attempt.latencyMs,
            error: attempt.error,
            at: formatTimestamp(attempt.createdAt, timeZone),
          })),
      })),
  }));
}

/** One request by its id, with what it created or replayed and the events it caused. */
export async function showRequest(context: ActingContext, requestId: string): Promise<ShownRequest> {
  const { db, timeZone } = context;
  const [found] = await db
    .select({ row: requestLog, companyName: companies.name })
    .from(requestLog)
    .leftJoin(companies, eq(companies.id, requestLog.companyId))
    .where(TRACE_ID.test(requestId) ? eq(requestLog.traceId, requestId) : eq(requestLog.requestId, requestId))
    .orderBy(asc(requestLog.at))
    .limit(1);
  if (!found) {
    throw new OperationError({ key: 'refused.request_not_logged', params: { id: requestId } });
  }
  const { row } = found;
  // A replay caused nothing itself: the events are those of the request that ran the write
  // (known from its record); any other request's events are read beside its record.
  const [record, ownEvents] = await Promise.all([
    recordOf(context, row),
    row.replayed ? null : eventsCausedBy(context, row.companyId, row.requestId),
  ]);
  const causeId = row.replayed ? record?.created_by_request_id : null;
  const events = ownEvents ?? (causeId ? await eventsCausedBy(context, row.companyId, causeId) : []);
  return { request: { ...asLoggedRequest(row, timeZone), company_name: found.companyName }, record, events };
}

/** A request id (`req_…`), or a W3C trace id (32 hex digits) that the partner's traceparent named. */
export function requestIdArg(raw: RawArgs): string {
  const value = raw.request_id;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ArgumentError({ key: 'arg.required', params: { name: { key: 'arg.label.request_id' } } });
  }
  const text = value.trim();
  if (!/^req_[0-9a-f]{24}$/.test(text) && !TRACE_ID.test(text)) {
    throw new ArgumentError({ key: 'arg.request_id' });
  }
  return text;
}
