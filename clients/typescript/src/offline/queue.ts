// OfflineQueue: writes made while the line is down, kept on disk and sent exactly once when it
// is back. The queue stores and orders entries; every request goes through its PartnerApi (one
// transport, pacer, retry budget and deprecation report). The rules (the same in PHP and Python):
// - enqueue writes the request, its Idempotency-Key (made there, once) and its body bytes to the
//   journal and syncs it before it returns the entry's local id;
// - flush sends the entries oldest first, each with its key and the same bytes on every attempt;
//   `{ $local }` ids are put in once, and that body is written to the journal before it goes;
// - the time of an entry's first send is on disk before it goes; one sent more than (24 h - margin)
//   ago is looked for first (lookup.ts) and, if not found, sent with a new key;
// - 4xx refusals move the entry (and later the entries that name it) to the failed list;
//   no answer, 429 and 5xx after the client's retries end the flush and keep the entry pending;
// - past `compactAfter` records it could drop, the journal is rewritten as it is now (entries.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PartnerApi } from '../client.js';
import { PartnerApiError, PartnerApiNetworkError } from '../errors.js';
import { retryable } from '../transport.js';
import { encodeBody, isLocalId, putIds } from './body.js';
import {
  Entries,
  type Entry,
  type EntryError,
  type EntryResult,
  type JournalRecord,
  type RefEntry,
} from './entries.js';
import { Journal, syncDirectory } from './journal.js';
import { StoreLock } from './lock.js';
import { lookUp } from './lookup.js';
import type {
  EnqueueOptions,
  FailedEntry,
  FlushResult,
  OfflineQueueOptions,
  OfflineQueueStatus,
} from './types.js';
import { RefConflictError, StoreKeyMismatchError } from './types.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

function refOf(ref: unknown): string | null {
  if (ref === undefined || ref === null) return null;
  if (typeof ref !== 'string' || ref.length === 0 || ref.length > 200)
    throw new TypeError('ref: um texto de 1 a 200 caracteres');
  return ref;
}

const sha256 = (...parts: string[]): string => createHash('sha256').update(parts.join('')).digest('hex');
const iso = (ms: number): string => new Date(ms).toISOString();

export class OfflineQueue {
  private readonly entries = new Entries();
  private readonly now: () => number;
  /** Records in the journal file, and its first (the key's salted hash). */
  private records = 0;
  private header: JournalRecord | undefined;
  private serial: Promise<unknown> = Promise.resolve();
  private flushing: Promise<FlushResult> | null = null;
  private closed = false;

  private constructor(
    private readonly options: OfflineQueueOptions,
    private readonly journal: Journal,
    private readonly lock: StoreLock,
    private readonly api: PartnerApi,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Opens (or makes) the store at `options.path`; refused while another process holds it. */
  static async open(options: OfflineQueueOptions): Promise<OfflineQueue> {
    const api = new PartnerApi(options); // its checks of the options, before anything is made on disk
    // The owner's only (0700, its files 0600): the entries hold customers' names, NUITs and
    // e-mails. A folder made looser before (or by hand) is tightened.
    await mkdir(options.path, { recursive: true, mode: 0o700 });
    await chmod(options.path, 0o700);
    const lock = await StoreLock.acquire(options.path);
    try {
      const { journal, records, created } = await Journal.open(join(options.path, 'journal.log'));
      const queue = new OfflineQueue(options, journal, lock, api);
      const header = records[0] as JournalRecord | undefined;
      queue.header = header;
      if (header?.t !== 'open') {
        const salt = randomBytes(16).toString('hex');
        queue.header = { t: 'open', v: 1, salt, key_hash: sha256(salt, options.apiKey), at: queue.now() };
        await queue.append(queue.header);
        if (created) await syncDirectory(options.path);
      } else if (sha256(header.salt, options.apiKey) !== header.key_hash) {
        await journal.close();
        throw new StoreKeyMismatchError(
          `a fila em ${options.path} foi criada com outra chave: use uma fila por caixa e por chave`,
        );
      }
      for (const record of records) queue.entries.apply(record as JournalRecord);
      queue.records += records.length;
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
   * same `ref` and the same body, the entry already held is returned, never a second one; with
   * another body it is refused (`RefConflictError`). Without `ref`, each call is a new entry.
   */
  enqueue(method: 'POST' | 'PUT', path: string, body: object, options: EnqueueOptions = {}): Promise<string> {
    return this.exclusive(async () => {
      const ref = refOf(options?.ref);
      // What a repeat must match: the call as the till made it (before the queue's reference).
      const digest = ref === null ? null : sha256(`${method} ${path}\n`, encodeBody(method, path, body).text);
      const held = ref === null ? undefined : this.entries.byRef.get(ref);
      if (ref !== null && held) {
        if (held.refDigest !== digest) throw new RefConflictError(ref, held.id);
        return held.id;
      }
      const reference = (body as { reference?: unknown } | null)?.reference;
      const given =
        method === 'POST' &&
        path === '/invoices' &&
        (reference === undefined || reference === null || reference === '')
          ? { ...body, reference: `fila-${randomUUID()}` }
          : body;
      const encoded = encodeBody(method, path, given);
      for (const local of encoded.waitsFor) {
        const named = this.entries.byId.get(local);
        if (named?.method !== 'POST' || named.state === 'discarded')
          throw new TypeError(`{ $local: ${local} } não é uma criação desta fila`);
      }
      const id = randomUUID();
      const { text, waitsFor: waits_for } = encoded;
      const refs = ref !== null && digest !== null ? { ref, ref_digest: digest } : {};
      const at = this.now();
      await this.append({
        t: 'enqueue',
        id,
        method: encoded.method,
        path,
        key: randomUUID(),
        body: text,
        waits_for,
        at,
        ...refs,
      });
      return id;
    });
  }

  /**
   * What the queue holds for the till's reference `ref` (given to enqueue): its local id and result,
   * or null. Read from the journal (kept by its compaction), so it answers after a crash as before it.
   */
  async byRef(ref: string): Promise<RefEntry | null> {
    const entry = this.entries.byRef.get(refOf(ref)!);
    return entry ? { local_id: entry.id, ...(await this.result(entry.id)) } : null;
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
    for (const entry of this.entries.byId.values()) counts[entry.state]++;
    let oldest: number | null = null;
    for (const entry of this.entries.pending.values())
      oldest = Math.min(oldest ?? entry.enqueuedAt, entry.enqueuedAt);
    const wait = this.api.writesFitInMs(counts.pending);
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
      .map(({ id, method, path, body, enqueuedAt, error }) => {
        return { local_id: id, method, path, body, enqueued_at: iso(enqueuedAt), error: error! };
      });
  }

  /**
   * Puts a failed entry back in the queue, with a corrected body if given, and a new key (the
   * refusal created nothing); the entries that failed waiting for it wait again. Its place in the
   * order is kept.
   */
  resend(localId: string, body?: object): Promise<void> {
    return this.exclusive(async () => {
      const entry = this.failedEntry(localId, 'reenvia');
      const encoded = body === undefined ? null : encodeBody(entry.method, entry.path, body);
      const text = encoded?.text ?? entry.body;
      await this.append({
        t: 'resend',
        id: entry.id,
        key: randomUUID(),
        body: text,
        waits_for: encoded?.waitsFor ?? entry.waitsFor,
      });
      for (const other of this.entries.ordered()) {
        if (other.state !== 'failed' || other.error?.depends_on !== entry.id) continue;
        await this.append({
          t: 'resend',
          id: other.id,
          key: randomUUID(),
          body: other.body,
          waits_for: other.waitsFor,
        });
      }
    });
  }

  /** Gives a failed entry up for good (entries that name it stay failed). */
  discard(localId: string): Promise<void> {
    return this.exclusive(() => this.append({ t: 'discard', id: this.failedEntry(localId, 'descarta').id }));
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

  private failedEntry(localId: string, verb: string): Entry {
    const entry = this.entry(localId);
    if (entry.state !== 'failed') throw new TypeError(`${localId}: só uma entrada falhada se ${verb}`);
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
    this.records++;
    this.entries.apply(record);
  }

  private async sendAll(): Promise<FlushResult> {
    const result: FlushResult = { sent: 0, found: 0, failed: 0, pending: 0, stopped: 'empty' };
    // The oldest pending entry after the last one sent, looked for again each time: what is
    // enqueued during the flush goes in the same flush.
    for (let entry = this.entries.nextPending(-1); entry; entry = this.entries.nextPending(entry.seq)) {
      try {
        result[await this.sendOne(entry)]++;
      } catch (error) {
        if (error instanceof PartnerApiNetworkError) result.stopped = 'offline';
        else if (error instanceof PartnerApiError && retryable(error)) result.stopped = 'busy';
        else throw error;
        break;
      }
    }
    result.pending = this.entries.pending.size;
    await this.exclusive(() => this.compact());
    return result;
  }

  /** Rewrites the journal as it is now, once it holds `compactAfter` records a rewrite drops. */
  private async compact(): Promise<void> {
    const records = [this.header!, ...this.entries.compacted()];
    if (this.records - records.length < (this.options.compactAfter ?? 10_000)) return;
    await this.journal.rewrite(records);
    this.records = records.length;
  }

  /** Sends one entry to the end: 'sent', 'found' (existed already) or 'failed'. */
  private async sendOne(entry: Entry): Promise<'sent' | 'found' | 'failed'> {
    for (const local of entry.waitsFor) {
      if (this.entries.byId.get(local)?.state === 'done') continue;
      const message = `espera pela entrada ${local}, que não foi criada`;
      const error = { status: null, code: 'dependency_failed', message, request_id: null, depends_on: local };
      return this.fail(entry, error);
    }
    if (entry.waitsFor.length > 0) {
      const body = putIds(entry.body, (local) => this.entries.byId.get(local)!.serverId!);
      await this.write({ t: 'body', id: entry.id, body });
    }
    const keyAge = entry.firstAttemptAt === null ? 0 : this.now() - entry.firstAttemptAt;
    if (keyAge >= DAY_MS - (this.options.keyExpiryMarginMs ?? HOUR_MS)) {
      if (entry.method === 'POST') {
        const since = iso(entry.firstAttemptAt! - (this.options.lookupSkewMs ?? HOUR_MS));
        const found = await lookUp(this.api, entry.path, entry.body, since);
        if ('unverifiable' in found)
          return this.fail(entry, {
            status: null,
            code: 'unverifiable',
            message: found.unverifiable,
            request_id: null,
          });
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
      const answer = await this.api.send<{ data: { id: number } }>(
        entry.method,
        entry.path,
        entry.body,
        entry.key,
      );
      await this.write({ t: 'done', id: entry.id, server_id: answer.data.id, found: false });
      return 'sent';
    } catch (error) {
      // A refusal for good: the entry itself is wrong (not the line, the key, the limits or the server).
      if (!(error instanceof PartnerApiError) || error.status === 401 || retryable(error)) throw error;
      const { status, code, apiMessage: message, errors, requestId: request_id } = error;
      return this.fail(entry, { status, code, message, ...(errors ? { errors } : {}), request_id });
    }
  }

  private async fail(entry: Entry, error: EntryError): Promise<'failed'> {
    await this.write({ t: 'failed', id: entry.id, error });
    return 'failed';
  }
}
