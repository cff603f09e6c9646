// Idempotency of every POST and PUT (contract sections 4, 7, 8; decisions.md "Idempotency").
//
// Step 9 of the pipeline (src/http/pipeline.ts), in two parts:
// 1. `requireIdempotencyKey` (onRequest, after the scope): the header must be there and valid.
// 2. `replayOrRefuseDuplicate` (preValidation, once the raw body is read): an earlier request with
//    the same key answers first: a different request (method, path or raw body bytes) -> 409
//    reuse; a finished one -> its stored answer replayed; one still running -> 409 in flight.
//    Only then come the path id and the body (step 10).
// 3. In the handler, `runIdempotentWrite` claims the key in its own committed statement, then
//    runs the business write and stores the response in ONE transaction that also holds the
//    claim's row lock. A claim whose holder died (its transaction aborted with it) is taken over
//    once `locked_at` is older than the lock timeout, or at once when the holder's database
//    session is known to be gone (see `SESSION_GONE`). A 422 or an internal failure stores nothing.
//    The claim never waits for that row lock (NOWAIT): while any transaction holds it, even one
//    of a frozen instance, the answer is 409 in flight at once; the database itself ends a
//    frozen holder's transaction (idle_in_transaction_session_timeout, src/db/client.ts).
// A write costs four statements of its own here (find, claim, hold, complete), each built once
// and prepared; the claim commits without waiting for the WAL flush (see `insertClaim`).
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type CompanyContext, inTransaction } from '../context.js';
import { type Database, isPostgres, runInTransaction } from '../db/client.js';
import { describeDatabaseError } from '../db/errors.js';
import { fixedStatement, runFixed } from '../db/prepared.js';
import { idempotencyKeys } from '../db/schema.js';
import { ApiError, type ErrorCode, envelopeOf } from '../errors.js';
import { withRequestSpan } from '../tracing/spans.js';
import { callerOf, contextOf, isWriteMethod, type RequestState, stateOf } from './request-state.js';

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{8,191}$/;
const RETENTION = sql`interval '24 hours'`;
const IN_FLIGHT_RETRY_AFTER_SECONDS = '2';

/** What the checks need of a key's record. */
interface IdempotencyRecord {
  id: number;
  requestHash: string;
  state: 'in_flight' | 'completed';
  responseStatus: number | null;
  responseBody: string | null;
}

export interface WriteResult {
  status: number;
  body: unknown;
}

function requestHashOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n`)
    .update(stateOf(request).rawBody ?? '', 'utf8')
    .digest('hex');
}

function inFlight(): ApiError {
  return new ApiError('idempotency_request_in_flight', {
    headers: { 'Retry-After': IN_FLIGHT_RETRY_AFTER_SECONDS },
  });
}

/** Sends JSON text that was serialized (and stored) already, byte for byte. */
function sendStored(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .serializer((payload) => payload as string)
    .send(text);
}

/**
 * The stored answer again. A success is sent byte for byte as stored; a stored error carries this
 * request's id in its `request_id`, which must equal this response's X-Request-Id.
 */
function replay(reply: FastifyReply, record: IdempotencyRecord): FastifyReply {
  stateOf(reply.request).replayed = true;
  reply.header('Idempotency-Replay', 'true');
  const status = record.responseStatus ?? 200;
  const text = record.responseBody ?? '';
  return sendStored(reply, status, status >= 400 ? withRequestId(text, reply.request) : text);
}

/**
 * A stored refusal with this request's id. Its code is recorded from it: the stored answer is the
 * only record of what the first request was refused with, and it is read here anyway.
 */
function withRequestId(text: string, request: FastifyRequest): string {
  const envelope = JSON.parse(text) as { error?: { code?: ErrorCode; request_id?: string } };
  if (!envelope.error) return text;
  stateOf(request).errorCode = envelope.error.code ?? null;
  envelope.error.request_id = String(request.id);
  return JSON.stringify(envelope);
}

type FoundRecord = IdempotencyRecord & {
  expired: boolean;
  stale: boolean;
  /** Read with the row lock only: why an in-flight claim is stale. */
  sessionGone?: boolean;
};

/**
 * What an existing record means for this request: a 409, a replay, or (null) go ahead because
 * nothing live holds the key (expired, or an in-flight claim whose holder timed out).
 */
function verdictOn(record: FoundRecord, requestHash: string): ApiError | 'replay' | null {
  if (record.expired) return null;
  if (record.requestHash !== requestHash) return new ApiError('idempotency_key_reuse');
  if (record.state === 'completed') return 'replay';
  return record.stale ? null : inFlight();
}

const value = sql.placeholder;

/**
 * Which server answers: its system identifier (a physical replica shares its primary's) and its
 * start time (a promoted replica, or a restarted server, has another one).
 */
const SERVER_IDENTITY = sql`(select system_identifier::text || '@' || pg_postmaster_start_time()::text
  from pg_control_system())`;

/**
 * The holder rule, the one place it is written: a claim's holder is a random name, and the
 * database session that holds it is recorded on PostgreSQL only (`track`): the embedded database
 * is one process, whose claims die with it, and it keeps the lock-timeout rule alone. Every
 * statement that makes or renews a holder (claim, takeover, hold) sets these values.
 */
const HOLDER_PID = sql`case when ${value('track')}::boolean then pg_backend_pid() end`;
const HOLDER_SERVER = sql`case when ${value('track')}::boolean then ${SERVER_IDENTITY} end`;

/** The placeholder values of a holder (`holder`, `track`) for the statements below. */
interface Holder {
  holder: string;
  track: boolean;
}

function newHolder(db: Database): Holder {
  return { holder: randomBytes(16).toString('hex'), track: isPostgres(db) };
}

/**
 * The holder's database session is gone: another server answers now (the primary failed over or
 * restarted), or its backend no longer runs on this one (its instance was killed, or the session
 * ended). A pid reused since only delays the takeover to the lock timeout, never hastens it.
 */
const SESSION_GONE = sql`(${idempotencyKeys.holderServer} is not null and (
    ${idempotencyKeys.holderServer} <> ${SERVER_IDENTITY}
    or not exists (select 1 from pg_stat_activity a where a.pid = ${idempotencyKeys.holderPid})))`;

function recordQuery(lock: boolean) {
  const k = idempotencyKeys;
  return sql`select ${k.id} as "id", ${k.requestHash} as "requestHash", ${k.state} as "state",
      ${k.responseStatus} as "responseStatus", ${k.responseBody} as "responseBody",
      ${k.expiresAt} <= now() as "expired",
      (${k.state} = 'in_flight' and (
        ${k.lockedAt} <= now() - make_interval(secs => ${value('lockTimeoutSeconds')}::double precision)
        or ${SESSION_GONE})) as "stale"
      ${lock ? sql`, ${SESSION_GONE} as "sessionGone"` : sql``}
    from ${k} where ${k.apiKeyId} = ${value('apiKeyId')}::integer and ${k.key} = ${value('key')}::text
    ${lock ? sql`for update nowait` : sql``}`;
}

// The statements of every write, built once and prepared (src/db/prepared.ts).
const FIND = fixedStatement(recordQuery(false));
const FIND_AND_LOCK = fixedStatement(recordQuery(true));
const CLAIM = fixedStatement(
  sql`with unflushed as (select set_config('synchronous_commit', 'off', true))
    insert into ${idempotencyKeys}
      (api_key_id, company_id, key, request_hash, state, holder, holder_pid, holder_server, expires_at)
    select ${value('apiKeyId')}::integer, ${value('companyId')}::integer, ${value('key')}::text,
      ${value('requestHash')}::text, 'in_flight', ${value('holder')}::text, ${HOLDER_PID}, ${HOLDER_SERVER},
      now() + ${RETENTION}
    from unflushed
    where not exists (
      select 1 from ${idempotencyKeys}
      where ${idempotencyKeys.apiKeyId} = ${value('apiKeyId')}::integer and ${idempotencyKeys.key} = ${value('key')}::text
    )
    on conflict (api_key_id, key) do nothing
    returning id`,
);
const TAKE_OVER = fixedStatement(
  sql`update ${idempotencyKeys}
    set request_hash = ${value('requestHash')}::text, state = 'in_flight', holder = ${value('holder')}::text,
      holder_pid = ${HOLDER_PID}, holder_server = ${HOLDER_SERVER}, locked_at = now(),
      response_status = null, response_body = null, created_at = now(), expires_at = now() + ${RETENTION}
    where ${idempotencyKeys.id} = ${value('id')}::integer`,
);
const HOLD = fixedStatement(
  sql`update ${idempotencyKeys} set locked_at = now(), holder_pid = ${HOLDER_PID}, holder_server = ${HOLDER_SERVER}
    where ${idempotencyKeys.id} = ${value('id')}::integer and ${idempotencyKeys.holder} = ${value('holder')}::text
    returning id`,
);
const COMPLETE = fixedStatement(
  sql`update ${idempotencyKeys}
    set state = 'completed', response_status = ${value('status')}::integer, response_body = ${value('body')}::text,
      locked_at = now()
    where ${idempotencyKeys.id} = ${value('id')}::integer and ${idempotencyKeys.holder} = ${value('holder')}::text
    returning id`,
);

/** The record of a key; with `lock`, its row is locked for the transaction or, if taken, a 55P03 at once. */
async function findRecord(
  db: Database,
  apiKeyId: number,
  key: string,
  lockTimeoutSeconds: number,
  lock?: 'lock',
): Promise<FoundRecord | null> {
  const [record] = await runFixed<FoundRecord>(db, lock ? FIND_AND_LOCK : FIND, {
    apiKeyId,
    key,
    lockTimeoutSeconds,
  });
  return record ?? null;
}

/** Step 9, first part: every POST and PUT carries a valid Idempotency-Key. */
export function requireIdempotencyKey(request: FastifyRequest): void {
  if (!isWriteMethod(request.method)) return;
  const state = stateOf(request);
  const key = state.sentIdempotencyKey;
  if (key === undefined || key === '') throw new ApiError('idempotency_key_required');
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw new ApiError('idempotency_key_invalid');
  state.idempotencyKey = key;
  // From here on every write, event and record of this request knows the key it was sent with
  // (the actor is this request's own, made by authentication).
  const { actor } = contextOf(request);
  if (actor.kind === 'api_key') actor.idempotencyKey = key;
}

/** The accepted Idempotency-Key of a write past step 9. */
function acceptedKeyOf(state: RequestState): string {
  if (state.idempotencyKey === null) throw new Error('a write past step 9 without its Idempotency-Key');
  return state.idempotencyKey;
}

/** Step 9, second part: an earlier request with the same key answers before anything else is checked. */
export async function replayOrRefuseDuplicate(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  const state = stateOf(request);
  if (state.idempotencyKey === null) return;
  const { db, config } = request.server;
  state.requestHash = requestHashOf(request);
  const record = await findRecord(
    db,
    callerOf(request).apiKeyId,
    state.idempotencyKey,
    config.idempotencyLockTimeoutSeconds,
  );
  const verdict = record ? verdictOn(record, state.requestHash) : null;
  // Returning the reply tells Fastify the answer is sent: no later step runs.
  if (verdict === 'replay' && record) return replay(reply, record);
  if (verdict) throw verdict;
}

/** Expired keys are free again at once (the claim overwrites them); this only reclaims space. */
export function pruneExpiredKeys(app: FastifyInstance): void {
  const prune = setInterval(
    () => {
      app.db
        .delete(idempotencyKeys)
        .where(sql`${idempotencyKeys.expiresAt} < now() - interval '1 hour'`)
        .catch((error: unknown) => app.log.warn({ err: error }, 'pruning idempotency keys failed'));
    },
    60 * 60 * 1000,
  );
  prune.unref();
  app.addHook('onClose', async () => clearInterval(prune));
}

/** What a claim needs of its request, read once: who writes, with which key, what request. */
interface ClaimRequest {
  apiKeyId: number;
  companyId: number;
  key: string;
  requestHash: string;
}

/**
 * Claims the key: inserted when no record exists, or taken over when the record expired or was
 * left behind by a holder that stopped. Never waits on a lock: a record whose row another
 * transaction holds (its holder is working, or frozen mid-transaction) is in flight, a 409. The
 * insert is only tried when no record was there, so it cannot queue behind a holder's open
 * transaction either; one stuck key never keeps a connection of another instance busy.
 */
async function claim(db: Database, request: FastifyRequest, lockTimeoutSeconds: number): Promise<Claim> {
  const { apiKeyId, companyId } = callerOf(request);
  const state = stateOf(request);
  const facts: ClaimRequest = {
    apiKeyId,
    companyId,
    key: acceptedKeyOf(state),
    requestHash: state.requestHash,
  };
  const holder = newHolder(db);
  const inserted = await insertClaim(db, facts, holder);
  if (inserted !== null) return { id: inserted, holder };
  try {
    return await takeOver(db, facts, holder, lockTimeoutSeconds, request.log);
  } catch (error) {
    if (describeDatabaseError(error).label === 'lock_timeout') return inFlight();
    throw error;
  }
}

/**
 * The claim's row, in one statement, when no record of the key exists (else null): committed at
 * once, without waiting for the WAL flush (synchronous_commit off for this statement alone). Safe:
 * the claim only matters once the write that completes it commits, and that commit (synchronous)
 * flushes the WAL up to itself, the claim included; a crash before that loses the claim together
 * with a request that never answered.
 */
async function insertClaim(db: Database, facts: ClaimRequest, holder: Holder): Promise<number | null> {
  const [row] = await runFixed<{ id: number }>(db, CLAIM, { ...facts, ...holder });
  return row ? row.id : null;
}

type Claim = { id: number; holder: Holder } | ApiError | { replay: IdempotencyRecord };

/** Judges the existing record under its row lock (NOWAIT) and takes it over when nothing live holds it. */
function takeOver(
  db: Database,
  facts: ClaimRequest,
  holder: Holder,
  lockTimeoutSeconds: number,
  log: FastifyBaseLogger,
): Promise<Claim> {
  return runInTransaction(db, async (tx) => {
    const record = await findRecord(tx, facts.apiKeyId, facts.key, lockTimeoutSeconds, 'lock');
    // Gone since we looked (expired and pruned, or released by a failed attempt): try again later.
    if (!record) return inFlight();
    const verdict = verdictOn(record, facts.requestHash);
    if (verdict === 'replay') return { replay: record };
    if (verdict) return verdict;
    if (!record.expired && record.state === 'in_flight') {
      // Worth seeing after a crash or a failover: a write of the stopped holder may be redone.
      log.info(
        { idempotency_record: record.id, reason: record.sessionGone ? 'session_gone' : 'lock_timeout' },
        'idempotency claim of a stopped holder taken over',
      );
    }
    await runFixed(tx, TAKE_OVER, { id: record.id, requestHash: facts.requestHash, ...holder });
    return { id: record.id, holder };
  });
}

async function release(db: Database, id: number, { holder }: Holder): Promise<void> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.id, id), eq(idempotencyKeys.holder, holder)));
}

async function complete(
  db: Database,
  id: number,
  { holder }: Holder,
  status: number,
  body: string,
): Promise<boolean> {
  const rows = await runFixed<{ id: number }>(db, COMPLETE, { id, holder, status, body });
  return rows.length === 1;
}

class LostClaim extends Error {}

/**
 * Resolves once the answer is sent. A write's handler must not resolve before: Fastify answers a
 * handler that resolved to nothing while its reply is not on the wire yet with an empty body, and
 * a compressed answer over the plugin's synchronous size (8 KB on 2 cores) is still streaming
 * then (a 200-line draft was answered `Content-Length: 0`; test/http/compression-sizes.test.ts).
 * A socket error after the commit is not an error of the write: the stored answer replays.
 */
function sent(reply: FastifyReply): Promise<void> {
  return new Promise((resolve) => {
    reply.then(resolve, () => resolve());
  });
}

/**
 * Runs a write exactly once per (API key, Idempotency-Key): `work` gets the request context bound
 * to a transaction in which it must do all its writes; its result is serialized by the route's
 * response schema, stored in the same transaction, and sent. The promise resolves once the
 * answer is sent, so a handler simply returns it.
 */
export async function runIdempotentWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (context: CompanyContext) => Promise<WriteResult>,
): Promise<void> {
  const app = request.server;
  const claimed = await withRequestSpan(request, 'idempotency claim', () =>
    claim(app.db, request, app.config.idempotencyLockTimeoutSeconds),
  );
  if (claimed instanceof ApiError) throw claimed;
  if ('replay' in claimed) return sent(replay(reply, claimed.replay));
  const { id, holder } = claimed;

  let text: string;
  try {
    text = await runInTransaction(app.db, async (tx) => {
      // Holding this row lock until commit keeps any takeover waiting while we are alive.
      const [held] = await runFixed<{ id: number }>(tx, HOLD, { id, ...holder });
      if (!held) throw new LostClaim();
      const result = await work(inTransaction(contextOf(request), tx));
      reply.code(result.status);
      const serialized = reply.serialize(result.body) as string;
      if (!(await complete(tx, id, holder, result.status, serialized))) throw new LostClaim();
      return serialized;
    });
  } catch (error) {
    if (error instanceof LostClaim) throw inFlight();
    if (error instanceof ApiError && error.statusCode !== 422) {
      // A completed refusal (e.g. 404 for a foreign customer_id) is stored and replayed like any answer.
      const envelope = JSON.stringify(envelopeOf(error, app.config.docsUrl, String(request.id)));
      if (await complete(app.db, id, holder, error.statusCode, envelope)) {
        stateOf(request).errorCode = error.code;
        return sent(sendStored(reply.headers(error.headers), error.statusCode, envelope));
      }
      throw error;
    }
    // A 422 stores nothing (the key may be reused); an internal failure wrote nothing either.
    await release(app.db, id, holder).catch((releaseError: unknown) =>
      request.log.error({ err: releaseError }, 'releasing idempotency key failed'),
    );
    throw error;
  }
  return sent(sendStored(reply, reply.statusCode, text));
}
