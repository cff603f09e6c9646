// OfflineQueue: writes made while the line is down, kept on disk and sent exactly once when it
// is back. The queue stores and orders entries; every request goes through its PartnerApi (one
// transport, pacer, retry budget and deprecation report). The rules (the same in PHP and Python):
// - enqueue writes the request, its Idempotency-Key (made there, once) and its body bytes to the
//   journal and syncs it before it returns the entry's local id;
// - flush sends the entries oldest first, each with its key and the same bytes on every attempt;
//   `{ $local }` ids are put in once, and that body is written to the journal before it goes;
// - the time of an entry's first send is on disk before it goes; one sent more than (24 h - margin)
//   ago is looked for first (lookUp) and, if not found, sent with a new key;
// - 4xx refusals move the entry (and later the entries that name it) to the failed list;
//   no answer, 429 and 5xx after the client's retries end the flush and keep the entry pending;
// - past `compactAfter` records it could drop, the journal is rewritten as it is now (entries.ts).
import { createHash, randomUUID } from 'node:crypto';
import { PartnerApi } from '../client.js';
import { PartnerApiError, PartnerApiNetworkError } from '../errors.js';
import { retryable } from '../transport.js';
import { encodeBody, isLocalId, lookUp, putIds } from './body.js';
import type * as T from './entries.js';
import { RefConflictError } from './entries.js';
import { Journal } from './journal.js';

const HOUR_MS = 60 * 60 * 1000;
const iso = (ms: number): string => new Date(ms).toISOString();
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function refOf(ref: unknown): string | undefined {
  if (ref === undefined || ref === null) return undefined;
  if (typeof ref !== 'string' || ref.length === 0 || ref.length > 200)
    throw new TypeError('ref: um texto de 1 a 200 caracteres');
  return ref;
}

export class OfflineQueue {
  private serial: Promise<unknown> = Promise.resolve();
  private flushing: Promise<T.FlushResult> | null = null;
  private closed = false;

  private constructor(
    private readonly options: T.OfflineQueueOptions,
    private readonly journal: Journal,
    private readonly entries: T.Entries,
    private readonly api: PartnerApi,
    private readonly now: () => number,
  ) {}

  /** Opens (or makes) the store at `options.path`; refused while another process holds it. */
  static async open(options: T.OfflineQueueOptions): Promise<OfflineQueue> {
    const api = new PartnerApi(options); // its checks of the options, before anything is made on disk
    const now = options.now ?? Date.now;
    const journal = await Journal.open(options.path, options.apiKey, now());
    return new OfflineQueue(options, journal, journal.entries, api, now);
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
  enqueue(method: 'POST' | 'PUT', path: string, body: object, options?: T.EnqueueOptions): Promise<string> {
    return this.exclusive(async () => {
      const ref = refOf(options?.ref);
      // What a repeat must match: the call as the till made it (before the queue's reference).
      const ref_digest = ref && sha256(`${method} ${path}\n${encodeBody(method, path, body).body}`);
      const held = ref === undefined ? undefined : this.entries.byRef.get(ref);
      if (held && held.ref_digest !== ref_digest) throw new RefConflictError(ref!, held.id);
      if (held) return held.id;
      const reference = (body as { reference?: unknown } | null)?.reference ?? '';
      const bare = method === 'POST' && path === '/invoices' && reference === '';
      const encoded = encodeBody(method, path, bare ? { ...body, reference: `fila-${randomUUID()}` } : body);
      for (const local of encoded.waits_for) {
        const creation = this.entries.byId.get(local);
        if (creation?.method !== 'POST' || creation.state === 'discarded')
          throw new TypeError(`{ $local: ${local} } não é uma criação desta fila`);
      }
      const entry = {
        id: randomUUID(),
        path,
        key: randomUUID(),
        at: this.now(),
        ref,
        ref_digest,
        ...encoded,
      };
      await this.journal.append({ t: 'enqueue', ...entry });
      return entry.id;
    });
  }

  /**
   * What the queue holds for the till's reference `ref` (given to enqueue): its local id and result,
   * or null. Read from the journal (kept by its compaction), so it answers after a crash as before it.
   */
  async byRef(ref: string): Promise<T.RefEntry | null> {
    const entry = this.entries.byRef.get(refOf(ref)!);
    return entry ? { local_id: entry.id, ...(await this.result(entry.id)) } : null;
  }

  /**
   * Sends the pending entries, oldest first. Resolves when none is left to send, when the API does
   * not answer (offline), or when it is busy (429 or 5xx beyond the client's retries).
   */
  flush(): Promise<T.FlushResult> {
    if (this.closed) return Promise.reject(new Error('a fila está fechada'));
    // One flush at a time; enqueue never waits for it (only each journal write is serialized).
    this.flushing ??= this.sendAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  async status(): Promise<T.OfflineQueueStatus> {
    const counts = { pending: 0, done: 0, failed: 0, discarded: 0 };
    for (const entry of this.entries.byId.values()) counts[entry.state]++;
    let oldest = Number.POSITIVE_INFINITY;
    for (const entry of this.entries.pending.values()) oldest = Math.min(oldest, entry.at);
    const wait = this.api.writesFitInMs(counts.pending);
    return {
      ...counts,
      oldest_pending_at: counts.pending === 0 ? null : iso(oldest),
      estimated_empty_at: wait === null ? null : iso(this.now() + wait),
    };
  }

  async result(localId: string): Promise<T.EntryResult> {
    const { state, server_id: id, error } = this.entry(localId);
    return { state, ...(id === null ? {} : { id }), ...(error ? { error } : {}) };
  }

  async failed(): Promise<T.FailedEntry[]> {
    return this.entries
      .ordered()
      .flatMap(({ id, method, path, body, at, state, error }) =>
        state === 'failed' ? [{ local_id: id, method, path, body, enqueued_at: iso(at), error: error! }] : [],
      );
  }

  /**
   * Puts a failed entry back in the queue, with a corrected body if given, and a new key (the
   * refusal created nothing); the entries that failed waiting for it wait again. Its place in the
   * order is kept.
   */
  resend(localId: string, body?: object): Promise<void> {
    return this.exclusive(async () => {
      const entry = this.failedEntry(localId, 'reenvia');
      const changed = body === undefined ? entry : encodeBody(entry.method, entry.path, body);
      const dependants = this.entries
        .ordered()
        .filter((other) => other.state === 'failed' && other.error?.depends_on === entry.id);
      for (const { id, body: text, waits_for } of [{ ...changed, id: entry.id }, ...dependants])
        await this.journal.append({ t: 'resend', id, key: randomUUID(), body: text, waits_for });
    });
  }

  /** Gives a failed entry up for good (entries that name it stay failed). */
  discard(localId: string): Promise<void> {
    return this.exclusive(() =>
      this.journal.append({ t: 'discard', id: this.failedEntry(localId, 'descarta').id }),
    );
  }

  /** Waits for a flush in progress, then releases the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flushing?.catch(() => undefined);
    await this.exclusive(async () => {
      this.closed = true;
      await this.journal.close();
    });
  }

  private entry(localId: string): T.Entry {
    const entry = isLocalId(localId) ? this.entries.byId.get(localId) : undefined;
    if (!entry) throw new TypeError(`${localId}: não é uma entrada desta fila`);
    return entry;
  }

  private failedEntry(localId: string, verb: string): T.Entry {
    const entry = this.entry(localId);
    if (entry.state !== 'failed') throw new TypeError(`${localId}: só uma entrada falhada se ${verb}`);
    return entry;
  }

  /** One change at a time: journal order is memory order. */
  private exclusive<R>(work: () => Promise<R>): Promise<R> {
    const run = this.serial.then(() => {
      if (this.closed) throw new Error('a fila está fechada');
      return work();
    });
    this.serial = run.catch(() => undefined);
    return run;
  }

  /** A journal write of the flush, in line with enqueue's. */
  private write(record: T.JournalRecord): Promise<void> {
    return this.exclusive(() => this.journal.append(record));
  }

  private async sendAll(): Promise<T.FlushResult> {
    const result: T.FlushResult = { sent: 0, found: 0, failed: 0, pending: 0, stopped: 'empty' };
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
    await this.exclusive(() => this.journal.compact(this.options.compactAfter ?? 10_000));
    return result;
  }

  /** Sends one entry to the end: 'sent', 'found' (existed already) or 'failed'. */
  private async sendOne(entry: T.Entry): Promise<'sent' | 'found' | 'failed'> {
    const { id, method, path } = entry;
    for (const local of entry.waits_for) {
      if (this.entries.byId.get(local)?.state === 'done') continue;
      const message = `espera pela entrada ${local}, que não foi criada`;
      return this.fail(id, { code: 'dependency_failed', message, depends_on: local });
    }
    const serverId = (local: string) => this.entries.byId.get(local)!.server_id!;
    if (entry.waits_for.length > 0) await this.write({ t: 'body', id, body: putIds(entry.body, serverId) });
    const first = entry.first_attempt_at;
    if (first !== null && this.now() - first >= 24 * HOUR_MS - (this.options.keyExpiryMarginMs ?? HOUR_MS)) {
      if (method === 'POST') {
        const since = iso(first - (this.options.lookupSkewMs ?? HOUR_MS));
        const found = await lookUp(this.api, path, entry.body, since);
        if (typeof found === 'string') return this.fail(id, { code: 'unverifiable', message: found });
        if (found !== null) {
          await this.write({ t: 'done', id, server_id: found, found: true });
          return 'found';
        }
      }
      // Not created (or a PUT, which sets the same fields again): a new key for a new first send.
      await this.write({ t: 'rekey', id, key: randomUUID() });
    }
    if (entry.first_attempt_at === null) await this.write({ t: 'attempt', id, at: this.now() });
    try {
      const answer = await this.api.send<{ data: { id: number } }>(method, path, entry.body, entry.key);
      await this.write({ t: 'done', id, server_id: answer.data.id, found: false });
      return 'sent';
    } catch (error) {
      // A refusal for good: the entry itself is wrong (not the line, the key, the limits or the server).
      if (!(error instanceof PartnerApiError) || error.status === 401 || retryable(error)) throw error;
      const { status, code, apiMessage: message, errors, requestId: request_id } = error;
      return this.fail(id, { status, code, message, ...(errors ? { errors } : {}), request_id });
    }
  }

  /** The entry refused: by the server, or by the queue itself (no status nor request id then). */
  private async fail(id: string, error: Partial<T.EntryError> & { message: string }): Promise<'failed'> {
    await this.write({ t: 'failed', id, error: { status: null, code: null, request_id: null, ...error } });
    return 'failed';
  }
}
