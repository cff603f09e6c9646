// OfflineQueue: writes made while the line is down, kept on disk and sent exactly once when it
// is back. The rules (the same in the PHP and Python clients):
// - enqueue writes the request, its Idempotency-Key (made there, once) and its body bytes to the
//   journal and syncs it before it returns the entry's local id;
// - flush sends the entries oldest first, each with its key and the same bytes on every attempt;
//   an entry is done only when an answer says so; `{ $local }` ids are put in once, before the
//   first send, and that body is written to the journal before it goes;
// - the time of an entry's first send is on disk before it goes: an entry never sent with its key
//   cannot have created anything; one sent more than (24 h - margin) ago is looked for first
//   (lookup.ts) and, if not found, sent with a new key;
// - 4xx refusals move the entry (and later the entries that name it) to the failed list;
//   no answer, 429 and 5xx after the client's retries end the flush and keep the entry pending.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { VERSION } from '../client.js';
import { PartnerApiError, PartnerApiNetworkError } from '../errors.js';
import { type PaceInfo, Pacer } from '../pacing.js';
import { type FetchFunction, Transport } from '../transport.js';
import { encodeBody, isLocalId, putIds } from './body.js';
import { Entries, type Entry, type EntryError, type JournalRecord } from './entries.js';
import { Journal, syncDirectory } from './journal.js';
import { StoreLock } from './lock.js';
import { lookUp } from './lookup.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface OfflineQueueOptions {
  /** A directory of this till's own: the journal and the lock live there (made when missing). */
  path: string;
  apiKey: string;
  baseUrl: string;
  /** The queue's clock, in milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** An entry sent more than 24 h minus this ago is looked for before it is sent again (default 1 h). */
  keyExpiryMarginMs?: number;
  /** The look-up reads records changed since the first send minus this (clock skew; default 1 h). */
  lookupSkewMs?: number;
  /** Of the client's transport: retries of one send before the flush stops (default 4). */
  maxRetries?: number;
  retryBaseDelayMs?: number;
  timeoutMs?: number;
  maxRetryWaitMs?: number;
  fetch?: FetchFunction;
  onPace?: (info: PaceInfo) => void;
}

export interface OfflineQueueStatus {
  pending: number;
  done: number;
  failed: number;
  discarded: number;
  /** ISO time of the oldest pending entry's enqueue, or null. */
  oldest_pending_at: string | null;
  /** When the pending entries should all be sent at the known rate limits (null: not known yet). */
  estimated_empty_at: string | null;
}

export interface EntryResult {
  state: Entry['state'];
  /** The server's id of the record (done). */
  id?: number;
  error?: EntryError;
}

export interface FailedEntry {
  local_id: string;
  method: 'POST' | 'PUT';
  path: string;
  /** The body's JSON text, as it would be sent. */
  body: string;
  enqueued_at: string;
  error: EntryError;
}

export interface FlushResult {
  sent: number;
  found: number;
  failed: number;
  pending: number;
  /** Why the flush ended: nothing left to send, no answer, or the server is busy (429, 5xx). */
  stopped: 'empty' | 'offline' | 'busy';
}

export class StoreKeyMismatchError extends Error {
  override readonly name = 'StoreKeyMismatchError';
}

export interface EnqueueOptions {
  /** The till's own identifier of the operation, such as its sale number (1 to 200 characters). */
  ref?: string;
}

/** What `byRef` answers: the entry's local id and its result. */
export interface RefEntry extends EntryResult {
  local_id: string;
}

/** The same `ref` was enqueued before with another body: refused, nothing written. */
export class RefConflictError extends Error {
  override readonly name = 'RefConflictError';
  constructor(
    readonly ref: string,
    /** The local id of the entry already held for `ref`. */
    readonly localId: string,
  ) {
    super(
      `a referência ${JSON.stringify(ref)} já está na fila (entrada ${localId}) com outro pedido: ` +
        'a mesma referência só se repete com o mesmo método, caminho e corpo',
    );
  }
}

const MAX_REF_LENGTH = 200;

function refOf(ref: unknown): string | null {
  if (ref === undefined || ref === null) return null;
  if (typeof ref !== 'string' || ref.length === 0 || ref.length > MAX_REF_LENGTH)
    throw new TypeError(`ref must be a string of 1 to ${MAX_REF_LENGTH} characters`);
  return ref;
}

function refDigest(method: string, path: string, text: string): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(text).digest('hex');
}

function hashKey(salt: string, apiKey: string): string {
  return createHash('sha256').update(salt).update(apiKey).digest('hex');
}

const iso = (ms: number): string => new Date(ms).toISOString();

export class OfflineQueue {
  private readonly entries = new Entries();
  private readonly now: () => number;
  private readonly pacer: Pacer;
  private readonly transport: Transport;
  private serial: Promise<unknown> = Promise.resolve();
  private flushing: Promise<FlushResult> | null = null;
  private closed = false;

  private constructor(
    private readonly options: OfflineQueueOptions,
    private readonly journal: Journal,
    private readonly lock: StoreLock,
  ) {
    this.now = options.now ?? Date.now;
    const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
    this.pacer = new Pacer(maxRetryWaitMs, options.onPace);
    const platform = globalThis as { fetch?: FetchFunction };
    // Built aside (not as a literal argument), so that the options of a transport that takes more
    // (retryBudgetMs: the whole wait of one call's retries) are met without changing this file.
    const transportOptions = {
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      maxRetries: options.maxRetries ?? 4,
      timeoutMs: options.timeoutMs ?? 30_000,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 1000,
      maxRetryWaitMs,
      retryBudgetMs: 60_000,
      fetch:
        options.fetch ?? ((url: string, init: Parameters<FetchFunction>[1]) => platform.fetch!(url, init)),
      userAgent: `invoicing-partner-api-typescript/${VERSION} offline-queue`,
      onRetry: undefined,
      pacer: this.pacer,
      random: Math.random,
    };
    this.transport = new Transport(transportOptions);
  }

  /** Opens (or makes) the store at `options.path`; refused while another process holds it. */
  static async open(options: OfflineQueueOptions): Promise<OfflineQueue> {
    if (typeof options?.apiKey !== 'string' || options.apiKey === '')
      throw new TypeError('apiKey is required');
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl))
      throw new TypeError('baseUrl must be an http(s) address ending in /api/v1/partner');
    // The owner's only (0700, its files 0600): the entries hold customers' names, NUITs and
    // e-mails. A folder made looser before (or by hand) is tightened.
    await mkdir(options.path, { recursive: true, mode: 0o700 });
    await chmod(options.path, 0o700);
    const lock = await StoreLock.acquire(options.path);
    try {
      const file = join(options.path, 'journal.log');
      const { journal, records, created } = await Journal.open(file);
      const queue = new OfflineQueue(options, journal, lock);
      const header = records[0] as JournalRecord | undefined;
      if (header?.t === 'open') {
        if (hashKey(header.salt, options.apiKey) !== header.key_hash) {
          await journal.close();
          throw new StoreKeyMismatchError(
            `a fila em ${options.path} foi criada com outra chave: use uma fila por caixa e por chave`,
          );
        }
      } else {
        const salt = randomBytes(16).toString('hex');
        await journal.append({
          t: 'open',
          v: 1,
          salt,
          key_hash: hashKey(salt, options.apiKey),
          at: queue.now(),
        });
        if (created) await syncDirectory(options.path);
      }
      for (const record of records) queue.entries.apply(record as JournalRecord);
      return queue;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /**
   * Keeps a write (POST /customers, /products, /invoices; PUT /customers/{id}, /products/{id}) on
   * disk and returns its local id. `{ $local: id }` in the body stands for the id of an entry
   * enqueued before. An invoice without `reference` gets a unique one (the 24 h look-up needs it).
   *
   * `ref` is the till's own identifier of the operation (its sale number): enqueued again with the
   * same `ref` and the same body (after a crash, say), the entry already held is returned, never a
   * second one; with another body it is refused (`RefConflictError`). Without `ref`, each call is
   * a new entry.
   */
  enqueue(method: 'POST' | 'PUT', path: string, body: object, options: EnqueueOptions = {}): Promise<string> {
    return this.exclusive(async () => {
      const ref = refOf(options?.ref);
      // What a repeat of this ref must match: the call as the till made it (before the reference
      // the queue may add below).
      const digest = ref === null ? null : refDigest(method, path, encodeBody(method, path, body).text);
      if (ref !== null) {
        const held = this.entries.byRef.get(ref);
        if (held) {
          if (held.refDigest !== digest) throw new RefConflictError(ref, held.id);
          return held.id;
        }
      }
      let given = body;
      if (method === 'POST' && path === '/invoices' && typeof body === 'object' && body !== null) {
        const reference = (body as { reference?: unknown }).reference;
        if (reference === undefined || reference === null || reference === '')
          given = { ...body, reference: `fila-${randomUUID()}` };
      }
      const encoded = encodeBody(method, path, given);
      for (const local of encoded.waitsFor) {
        const named = this.entries.byId.get(local);
        if (named?.method !== 'POST' || named.state === 'discarded')
          throw new TypeError(`{ $local: ${local} } não é uma criação desta fila`);
      }
      const id = randomUUID();
      const at = this.now();
      await this.append({
        t: 'enqueue',
        id,
        method: encoded.method,
        path,
        key: randomUUID(),
        body: encoded.text,
        waits_for: encoded.waitsFor,
        at,
        ...(ref !== null && digest !== null ? { ref, ref_digest: digest } : {}),
      });
      return id;
    });
  }

  /**
   * What the queue holds for the till's reference `ref` (given to enqueue): its local id and state
   * (and the server's id once done, the refusal once failed), or null when none was enqueued with it.
   * Read from the journal, so it answers after a crash as before it.
   */
  async byRef(ref: string): Promise<RefEntry | null> {
    const entry = this.entries.byRef.get(refOf(ref)!);
    if (!entry) return null;
    return { local_id: entry.id, ...(await this.result(entry.id)) };
  }

  /**
   * Sends the pending entries, oldest first. Resolves when none is left to send, when the API does
   * not answer (offline), or when it is busy (429 or 5xx beyond the client's retries).
   */
  flush(): Promise<FlushResult> {
    if (this.closed) return Promise.reject(new Error('a fila está fechada'));
    // One flush at a time; enqueue never waits for it (only each journal write is serialized).
    this.flushing ??= this.sendAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  async status(): Promise<OfflineQueueStatus> {
    const counts = { pending: 0, done: 0, failed: 0, discarded: 0 };
    let oldest: number | null = null;
    for (const entry of this.entries.byId.values()) {
      counts[entry.state]++;
      if (entry.state === 'pending' && (oldest === null || entry.enqueuedAt < oldest))
        oldest = entry.enqueuedAt;
    }
    const wait = this.emptyInMs(counts.pending);
    return {
      ...counts,
      oldest_pending_at: oldest === null ? null : iso(oldest),
      estimated_empty_at: wait === null ? null : iso(this.now() + wait),
    };
  }

  async result(localId: string): Promise<EntryResult> {
    const entry = this.entry(localId);
    return {
      state: entry.state,
      ...(entry.serverId !== null ? { id: entry.serverId } : {}),
      ...(entry.error ? { error: entry.error } : {}),
    };
  }

  async failed(): Promise<FailedEntry[]> {
    return this.entries
      .ordered()
      .filter((entry) => entry.state === 'failed')
      .map((entry) => ({
        local_id: entry.id,
        method: entry.method,
        path: entry.path,
        body: entry.body,
        enqueued_at: iso(entry.enqueuedAt),
        error: entry.error!,
      }));
  }

  /**
   * Puts a failed entry back in the queue, with a corrected body if given, and a new key (the
   * refusal created nothing). Its place in the order is kept.
   */
  resend(localId: string, body?: object): Promise<void> {
    return this.exclusive(async () => {
      const entry = this.entry(localId);
      if (entry.state !== 'failed') throw new TypeError(`${localId}: só uma entrada falhada se reenvia`);
      const encoded = body === undefined ? null : encodeBody(entry.method, entry.path, body);
      await this.append({
        t: 'resend',
        id: entry.id,
        key: randomUUID(),
        body: encoded?.text ?? entry.body,
        waits_for: encoded?.waitsFor ?? entry.waitsFor,
      });
      // The entries that failed because they wait for this one wait again.
      for (const other of this.entries.ordered()) {
        if (other.state === 'failed' && other.error?.depends_on === entry.id) {
          await this.append({
            t: 'resend',
            id: other.id,
            key: randomUUID(),
            body: other.body,
            waits_for: other.waitsFor,
          });
        }
      }
    });
  }

  /** Gives a failed entry up for good (entries that name it stay failed). */
  discard(localId: string): Promise<void> {
    return this.exclusive(async () => {
      const entry = this.entry(localId);
      if (entry.state !== 'failed') throw new TypeError(`${localId}: só uma entrada falhada se descarta`);
      await this.append({ t: 'discard', id: entry.id });
    });
  }

  /** Waits for a flush in progress, then releases the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flushing?.catch(() => undefined);
    await this.exclusive(async () => {
      this.closed = true;
      await this.journal.close();
      await this.lock.release();
    });
  }

  private entry(localId: string): Entry {
    const entry = isLocalId(localId) ? this.entries.byId.get(localId) : undefined;
    if (!entry) throw new TypeError(`${localId}: não é uma entrada desta fila`);
    return entry;
  }

  /** One change at a time: journal order is memory order. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(() => {
      if (this.closed) throw new Error('a fila está fechada');
      return work();
    });
    this.serial = run.catch(() => undefined);
    return run;
  }

  /** A journal write of the flush, in line with enqueue's. */
  private write(record: JournalRecord): Promise<void> {
    return this.exclusive(() => this.append(record));
  }

  private async append(record: JournalRecord): Promise<void> {
    await this.journal.append(record);
    this.entries.apply(record);
  }

  private async sendAll(): Promise<FlushResult> {
    const result: FlushResult = { sent: 0, found: 0, failed: 0, pending: 0, stopped: 'empty' };
    // The oldest pending entry after the last one sent, looked for again each time: what is
    // enqueued during the flush goes in the same flush.
    for (let last = -1; ; ) {
      const entry = this.entries.ordered().find((e) => e.seq > last && e.state === 'pending');
      if (!entry) break;
      last = entry.seq;
      try {
        const outcome = await this.sendOne(entry);
        result[outcome]++;
      } catch (error) {
        if (error instanceof PartnerApiNetworkError) result.stopped = 'offline';
        else if (error instanceof PartnerApiError && error.status !== 401 && !refusal(error))
          result.stopped = 'busy';
        else throw error;
        break;
      }
    }
    result.pending = [...this.entries.byId.values()].filter((e) => e.state === 'pending').length;
    return result;
  }

  /** Sends one entry to the end: 'sent', 'found' (existed already) or 'failed'. */
  private async sendOne(entry: Entry): Promise<'sent' | 'found' | 'failed'> {
    if (entry.waitsFor.length > 0) {
      for (const local of entry.waitsFor) {
        const named = this.entries.byId.get(local);
        if (named?.state !== 'done') {
          await this.write({ t: 'failed', id: entry.id, error: dependencyFailed(local) });
          return 'failed';
        }
      }
      const body = putIds(entry.body, (local) => this.entries.byId.get(local)!.serverId!);
      await this.write({ t: 'body', id: entry.id, body });
    }
    const keyAge = entry.firstAttemptAt === null ? 0 : this.now() - entry.firstAttemptAt;
    if (keyAge >= DAY_MS - (this.options.keyExpiryMarginMs ?? 60 * 60 * 1000)) {
      if (entry.method === 'POST') {
        const since = iso(entry.firstAttemptAt! - (this.options.lookupSkewMs ?? 60 * 60 * 1000));
        const found = await lookUp(this.transport, entry.path, entry.body, since);
        if ('unverifiable' in found) {
          const error = { status: null, code: 'unverifiable', message: found.unverifiable, request_id: null };
          await this.write({ t: 'failed', id: entry.id, error });
          return 'failed';
        }
        if (found.found !== null) {
          await this.write({ t: 'done', id: entry.id, server_id: found.found, found: true });
          return 'found';
        }
      }
      // Not created (or a PUT, which sets the same fields again): a new key for a new first send.
      await this.write({ t: 'rekey', id: entry.id, key: randomUUID() });
    }
    if (entry.firstAttemptAt === null) await this.write({ t: 'attempt', id: entry.id, at: this.now() });
    try {
      const { body } = await this.transport.call<{ data: { id: number } }>({
        method: entry.method,
        path: entry.path,
        body: entry.body,
        idempotencyKey: entry.key,
      });
      await this.write({ t: 'done', id: entry.id, server_id: body.data.id, found: false });
      return 'sent';
    } catch (error) {
      if (!(error instanceof PartnerApiError) || !refusal(error)) throw error;
      await this.write({ t: 'failed', id: entry.id, error: errorOf(error) });
      return 'failed';
    }
  }

  /** Milliseconds until `writes` more writes fit in every write limit the client knows of. */
  private emptyInMs(writes: number): number | null {
    if (writes === 0) return 0;
    let longest: number | null = null;
    for (const limit of this.pacer.snapshot()) {
      if (!limit.appliesTo.includes('write') || !limit.quota || !limit.windowSeconds) continue;
      const left = Math.max(0, limit.remaining ?? limit.quota);
      const beyond = writes - left;
      const wait =
        beyond <= 0
          ? 0
          : (limit.resetInMs ?? 0) + (Math.ceil(beyond / limit.quota) - 1) * limit.windowSeconds * 1000;
      longest = Math.max(longest ?? 0, wait);
    }
    return longest;
  }
}

/** A refusal for good: the entry itself is wrong (not the line, the key's limits or the server). */
function refusal(error: PartnerApiError): boolean {
  if (error.status === 401) return false; // the key, not the entry: stays pending
  if (error.status === 429 || error.status >= 500) return false;
  return !(error.status === 409 && error.code === 'idempotency_request_in_flight');
}

function errorOf(error: PartnerApiError): EntryError {
  return {
    status: error.status,
    code: error.code,
    message: error.apiMessage,
    ...(error.errors ? { errors: error.errors } : {}),
    request_id: error.requestId,
  };
}

function dependencyFailed(local: string): EntryError {
  return {
    status: null,
    code: 'dependency_failed',
    message: `espera pela entrada ${local}, que não foi criada`,
    request_id: null,
    depends_on: local,
  };
}
