// Taking due deliveries and writing down what an attempt gave.
//
// Which delivery is due: status pending, next_attempt_at reached, its endpoint enabled and its
// company's partner API enabled. Of those, only the oldest of each endpoint is a candidate, and
// only while no other delivery of that endpoint is in flight, so one endpoint gets its events one
// at a time and in order of creation; a delivery waiting for a retry is not due, so it does not
// hold back the endpoint's newer events (order is kept "where possible": a retried event may
// arrive after a newer one; receivers order by the resource's `updated_at`).
//
// No connection is held during an attempt. A worker takes deliveries with a lease, in one short
// committed statement (`claimDue`: FOR UPDATE SKIP LOCKED, then lease_owner and leased_until set);
// the HTTP attempt runs with no connection; the outcome is one short transaction guarded by the
// lease (`saveOutcome`). Another instance skips a leased delivery, so two never attempt the same
// one at once; a process killed mid-attempt leaves its lease to expire, and the delivery is taken
// again (at least once). The same statements serve PostgreSQL and PGlite.
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { type Database, queryRows, runInTransaction } from '../db/client.js';
import { webhookAttempts, webhookDeliveries } from '../db/schema.js';
import { disableAfterFailures, signingSecrets } from './endpoints/index.js';
import { PING_EVENT } from './event-types.js';
import { countAttempt, countExhausted, observeLag } from './metrics.js';
import { retryDelay } from './schedule.js';
import { type AttemptOptions, type AttemptResult, sendAttempt } from './sender.js';
import { signedHeaders } from './signer.js';

export interface DueDelivery {
  id: number;
  endpointId: number;
  companyId: number;
  /** Attempts made before this one. */
  attempts: number;
  eventPublicId: string;
  eventType: string;
  payload: string;
  eventCreatedAt: Date;
  url: string;
  /** Secrets that sign this attempt (current, and previous during its 24 hours). */
  secrets: string[];
  /** The `traceparent` of the write that caused the event (tracing on), else null. */
  traceparent: string | null;
}

interface DueRow {
  id: string | number;
  endpoint_id: number;
  company_id: number;
  attempts: number;
  public_id: string;
  type: string;
  payload: string;
  event_created_at: Date | string;
  url: string;
  traceparent: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
}

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

const deliveryColumns = sql`select d.id, d.endpoint_id, d.company_id, d.attempts,
    ev.public_id, ev.type, ev.payload, ev.created_at as event_created_at, ev.traceparent,
    e.url, e.secret, e.previous_secret, e.previous_secret_expires_at`;
// The company of the delivery is the company of both its event and its endpoint.
const deliveryJoins = sql`join webhook_events ev on ev.id = d.event_id and ev.company_id = d.company_id
    join webhook_endpoints e on e.id = d.endpoint_id and e.company_id = d.company_id`;

export interface Lease {
  /** Who holds it: one id per claim, so a lease that was taken over is never mistaken for ours. */
  owner: string;
}

/**
 * Takes up to `limit` due deliveries (each of a different endpoint) with a lease of `leaseMs`, in
 * one statement that commits at once. Longer than an attempt may last: an attempt's outcome
 * written after its lease expired still counts, unless another worker has taken it meanwhile.
 */
export async function claimDue(
  db: Database,
  options: { owner: string; leaseMs: number; limit: number },
): Promise<DueDelivery[]> {
  const rows = await queryRows<DueRow>(
    db,
    sql`with heads as (
          select distinct on (d.endpoint_id) d.id, d.endpoint_id
          from webhook_deliveries d
          join webhook_endpoints e on e.id = d.endpoint_id and e.company_id = d.company_id
          join companies c on c.id = d.company_id
          where d.status = 'pending' and d.next_attempt_at <= now()
            and e.enabled and c.partner_api_enabled
          order by d.endpoint_id, d.id
        ), candidates as (
          select h.id from heads h
          where not exists (
            select 1 from webhook_deliveries busy
            where busy.endpoint_id = h.endpoint_id and busy.leased_until > now() and busy.status = 'pending'
          )
          order by h.id
          limit ${options.limit}
        ), taken as (
          select d.id from webhook_deliveries d
          where d.id in (select id from candidates) and d.status = 'pending' and d.next_attempt_at <= now()
            and (d.leased_until is null or d.leased_until <= now())
          for update of d skip locked
        ), leased as (
          update webhook_deliveries d
          set lease_owner = ${options.owner},
              leased_until = clock_timestamp() + ${options.leaseMs} * interval '1 millisecond'
          from taken where d.id = taken.id
          returning d.id, d.event_id, d.endpoint_id, d.company_id, d.attempts
        )
        ${deliveryColumns}
        from leased d
        ${deliveryJoins}
        order by d.id`,
  );
  return rows.map(dueDeliveryOf);
}

/**
 * Gives a lease back without an outcome (an attempt abandoned at shutdown): another worker may take
 * the delivery at once. The attempt may have reached the receiver: it will come again (at least once).
 */
export async function releaseLease(db: Database, deliveryId: number, lease: Lease): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ leaseOwner: null, leasedUntil: null })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.leaseOwner, lease.owner)));
}

/**
 * Every lease, given back. Only for the embedded database, whose one process holds DATA_DIR's
 * lock: a lease found when its worker starts was left by a process that died.
 */
export async function releaseAllLeases(db: Database): Promise<number> {
  const released = await db
    .update(webhookDeliveries)
    .set({ leaseOwner: null, leasedUntil: null })
    .where(isNotNull(webhookDeliveries.leasedUntil))
    .returning({ id: webhookDeliveries.id });
  return released.length;
}

/** One delivery by id, whatever its state (`webhooks test` attempts its ping itself). */
export async function loadDelivery(db: Database, id: number): Promise<DueDelivery | null> {
  const [row] = await queryRows<DueRow>(
    db,
    sql`${deliveryColumns} from webhook_deliveries d ${deliveryJoins} where d.id = ${id}`,
  );
  return row ? dueDeliveryOf(row) : null;
}

function dueDeliveryOf(row: DueRow): DueDelivery {
  return {
    id: Number(row.id),
    endpointId: row.endpoint_id,
    companyId: row.company_id,
    attempts: row.attempts,
    eventPublicId: row.public_id,
    eventType: row.type,
    payload: row.payload,
    eventCreatedAt: asDate(row.event_created_at),
    url: row.url,
    traceparent: row.traceparent,
    secrets: signingSecrets({
      secret: row.secret,
      previousSecret: row.previous_secret,
      previousSecretExpiresAt: row.previous_secret_expires_at ? asDate(row.previous_secret_expires_at) : null,
    }),
  };
}

/**
 * Signs the delivery for this moment and makes one HTTP attempt; `traceHeaders` (`traceparent`,
 * with tracing on) go with it, so that a receiver that traces joins the trace.
 */
export function attemptDelivery(
  delivery: DueDelivery,
  options: AttemptOptions,
  traceHeaders: Record<string, string> = {},
): Promise<AttemptResult> {
  const headers = signedHeaders(delivery.eventPublicId, delivery.payload, delivery.secrets);
  return sendAttempt(delivery.url, { ...traceHeaders, ...headers }, delivery.payload, options);
}

export interface Outcome {
  attempt: number;
  /** False when the lease had been taken over by another worker: this outcome was not written. */
  recorded: boolean;
  /** Milliseconds until the next attempt, when there is one. */
  retryInMs: number | null;
  /** The delivery was given up (its last attempt failed). */
  exhausted: boolean;
  /** ...and the endpoint was disabled for it just now. */
  endpointDisabled: boolean;
}

/**
 * Writes an attempt and the delivery's new state, in one short transaction, and gives the lease
 * back. Guarded by the lease (`null`: a delivery taken without one, `webhooks test`'s ping): when
 * another worker holds the delivery now, nothing is written and `recorded` is false.
 */
export async function saveOutcome(
  db: Database,
  delivery: DueDelivery,
  result: AttemptResult,
  schedule: readonly number[],
  lease: Lease | null,
): Promise<Outcome> {
  const attempt = delivery.attempts + 1;
  // A ping tells the operator about the endpoint now: it is never retried, never disables it.
  const isPing = delivery.eventType === PING_EVENT;
  const delay = result.succeeded || isPing ? null : retryDelay(schedule, attempt);
  const state = result.succeeded
    ? { status: 'succeeded' as const, completedAt: sql`clock_timestamp()` }
    : delay !== null
      ? { nextAttemptAt: sql`clock_timestamp() + ${delay} * interval '1 millisecond'` }
      : { status: 'failed' as const, completedAt: sql`clock_timestamp()` };
  const exhausted = !result.succeeded && delay === null && !isPing;
  const outcome = await runInTransaction(db, async (tx): Promise<Outcome> => {
    const updated = await tx
      .update(webhookDeliveries)
      .set({
        ...state,
        attempts: attempt,
        lastStatusCode: result.statusCode,
        lastError: result.error,
        leaseOwner: null,
        leasedUntil: null,
        updatedAt: sql`clock_timestamp()`,
      })
      .where(
        and(
          eq(webhookDeliveries.id, delivery.id),
          eq(webhookDeliveries.status, 'pending'),
          lease ? eq(webhookDeliveries.leaseOwner, lease.owner) : isNull(webhookDeliveries.leaseOwner),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) {
      return { attempt, recorded: false, retryInMs: null, exhausted: false, endpointDisabled: false };
    }
    await tx.insert(webhookAttempts).values({
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      attempt,
      succeeded: result.succeeded,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
    });
    const endpointDisabled =
      exhausted &&
      (await disableAfterFailures(
        tx,
        delivery.endpointId,
        `event ${delivery.eventPublicId} failed ${attempt} attempts (last: ${result.error ?? 'failed'})`,
      ));
    return { attempt, recorded: true, retryInMs: delay, exhausted, endpointDisabled };
  });
  countAttempt(result.succeeded);
  if (!outcome.recorded) return outcome;
  if (result.succeeded) observeLag((Date.now() - delivery.eventCreatedAt.getTime()) / 1000);
  if (outcome.exhausted) countExhausted(outcome.endpointDisabled);
  return outcome;
}
