// Taking due deliveries and writing down what an attempt gave.
//
// Which delivery is due: status pending, next_attempt_at reached, its endpoint enabled and its
// company's partner API enabled. Of those, only the oldest of each endpoint is a candidate, so one
// endpoint gets its events one at a time and in order of creation; a delivery waiting for a retry
// is not due, so it does not hold back the endpoint's newer events (order is kept "where possible":
// a retried event may arrive after a newer one; receivers order by the resource's `updated_at`).
//
// On PostgreSQL the candidate is taken with FOR UPDATE SKIP LOCKED inside a transaction that stays
// open during the attempt: another instance skips it (each attempt is made once), and a process
// that dies mid-attempt releases it at once with its connection. On PGlite one process owns the
// database, so the worker keeps its in-flight endpoints in memory instead of holding a transaction
// (which would stop every other query of the single connection during the attempt).
import { eq, type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';
import { webhookAttempts, webhookDeliveries } from '../db/schema.js';
import { disableAfterFailures, signingSecrets } from './endpoints.js';
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
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
}

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

const deliveryColumns = sql`select d.id, d.endpoint_id, d.company_id, d.attempts,
    ev.public_id, ev.type, ev.payload, ev.created_at as event_created_at,
    e.url, e.secret, e.previous_secret, e.previous_secret_expires_at`;
// The company of the delivery is the company of both its event and its endpoint.
const deliveryJoins = sql`join webhook_events ev on ev.id = d.event_id and ev.company_id = d.company_id
    join webhook_endpoints e on e.id = d.endpoint_id and e.company_id = d.company_id`;

/**
 * The next due delivery, or null. `lock`: take it FOR UPDATE SKIP LOCKED (call inside the
 * transaction that lasts the attempt). `skipEndpoints`: endpoints already in flight here.
 */
export async function claimDue(
  db: Database,
  options: { lock: boolean; skipEndpoints?: readonly number[] },
): Promise<DueDelivery | null> {
  const skip = options.skipEndpoints ?? [];
  const notInFlight: SQL =
    skip.length === 0
      ? sql``
      : sql`and d.endpoint_id not in (${sql.join(
          skip.map((id) => sql`${id}`),
          sql`, `,
        )})`;
  const locking = options.lock ? sql`for update of d skip locked` : sql``;
  const [row] = await queryRows<DueRow>(
    db,
    sql`with heads as (
          select distinct on (d.endpoint_id) d.id
          from webhook_deliveries d
          join webhook_endpoints e on e.id = d.endpoint_id and e.company_id = d.company_id
          join companies c on c.id = d.company_id
          where d.status = 'pending' and d.next_attempt_at <= now()
            and e.enabled and c.partner_api_enabled ${notInFlight}
          order by d.endpoint_id, d.id
        ), taken as (
          select d.id from webhook_deliveries d
          where d.id in (select id from heads) and d.status = 'pending' and d.next_attempt_at <= now()
          order by d.id
          limit 1
          ${locking}
        )
        ${deliveryColumns}
        from taken
        join webhook_deliveries d on d.id = taken.id
        ${deliveryJoins}`,
  );
  return row ? dueDeliveryOf(row) : null;
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
    secrets: signingSecrets({
      secret: row.secret,
      previousSecret: row.previous_secret,
      previousSecretExpiresAt: row.previous_secret_expires_at ? asDate(row.previous_secret_expires_at) : null,
    }),
  };
}

/** Signs the delivery for this moment and makes one HTTP attempt. */
export function attemptDelivery(delivery: DueDelivery, options: AttemptOptions): Promise<AttemptResult> {
  const headers = signedHeaders(delivery.eventPublicId, delivery.payload, delivery.secrets);
  return sendAttempt(delivery.url, { ...headers }, delivery.payload, options);
}

export interface Outcome {
  attempt: number;
  /** Milliseconds until the next attempt, when there is one. */
  retryInMs: number | null;
  /** The delivery was given up (its last attempt failed). */
  exhausted: boolean;
  /** ...and the endpoint was disabled for it just now. */
  endpointDisabled: boolean;
}

/** Writes an attempt and the delivery's new state (in one transaction, the caller's or its own). */
export async function saveOutcome(
  db: Database,
  delivery: DueDelivery,
  result: AttemptResult,
  schedule: readonly number[],
): Promise<Outcome> {
  const attempt = delivery.attempts + 1;
  const work = async (tx: Database): Promise<Outcome> => {
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
    const last = {
      attempts: attempt,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      updatedAt: sql`clock_timestamp()`,
    };
    if (result.succeeded) {
      await tx
        .update(webhookDeliveries)
        .set({ ...last, status: 'succeeded', completedAt: sql`clock_timestamp()` })
        .where(eq(webhookDeliveries.id, delivery.id));
      return { attempt, retryInMs: null, exhausted: false, endpointDisabled: false };
    }
    // A ping tells the operator about the endpoint now: it is never retried, never disables it.
    const isPing = delivery.eventType === PING_EVENT;
    const delay = isPing ? null : retryDelay(schedule, attempt);
    if (delay !== null) {
      await tx
        .update(webhookDeliveries)
        .set({ ...last, nextAttemptAt: sql`clock_timestamp() + ${delay} * interval '1 millisecond'` })
        .where(eq(webhookDeliveries.id, delivery.id));
      return { attempt, retryInMs: delay, exhausted: false, endpointDisabled: false };
    }
    await tx
      .update(webhookDeliveries)
      .set({ ...last, status: 'failed', completedAt: sql`clock_timestamp()` })
      .where(eq(webhookDeliveries.id, delivery.id));
    const endpointDisabled =
      !isPing &&
      (await disableAfterFailures(
        tx,
        delivery.endpointId,
        `event ${delivery.eventPublicId} failed ${attempt} attempts (last: ${result.error ?? 'failed'})`,
      ));
    return { attempt, retryInMs: null, exhausted: !isPing, endpointDisabled };
  };
  const outcome = await db.transaction(work);
  countAttempt(result.succeeded);
  if (result.succeeded) observeLag((Date.now() - delivery.eventCreatedAt.getTime()) / 1000);
  if (outcome.exhausted) countExhausted(outcome.endpointDisabled);
  return outcome;
}
