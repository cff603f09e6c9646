// What the offline queue takes and answers, and its entries, rebuilt from the journal's records
// (the journal is the only truth: memory is its replay). Each record names one entry and one
// change of it; a compaction folds each entry's history into its state now, and a finished entry
// (done or discarded) into one short record that still answers `result`, `byRef` and `$local`.
import type { PartnerApiOptions } from '../client.js';

/** The client's options (its defaults: retries, budget, pacing, deprecation report), and the queue's. */
export interface OfflineQueueOptions extends PartnerApiOptions {
  /** A directory of this till's own: the journal and the lock live there (made when missing). */
  path: string;
  /** The queue's clock, in milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** An entry sent more than 24 h minus this ago is looked for before it is sent again (default 1 h). */
  keyExpiryMarginMs?: number;
  /** The look-up reads records changed since the first send minus this (clock skew; default 1 h). */
  lookupSkewMs?: number;
  /** After a flush, the journal is compacted once it holds this many records it can drop (default 10 000). */
  compactAfter?: number;
}

export interface EnqueueOptions {
  /** The till's own identifier of the operation, such as its sale number (1 to 200 characters). */
  ref?: string;
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

export interface FlushResult {
  sent: number;
  found: number;
  failed: number;
  pending: number;
  /** Why the flush ended: nothing left to send, no answer, or the server is busy (429, 5xx). */
  stopped: 'empty' | 'offline' | 'busy';
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

export type EntryState = 'pending' | 'done' | 'failed' | 'discarded';

/** The server's refusal of an entry (or the queue's own, for `dependency_failed` and `unverifiable`). */
export interface EntryError {
  status: number | null;
  code: string | null;
  message: string;
  errors?: Record<string, string[]>;
  request_id: string | null;
  /** For `dependency_failed`: the local id of the entry this one waits for. */
  depends_on?: string;
}

export interface EntryResult {
  state: EntryState;
  /** The server's id of the record (done). */
  id?: number;
  error?: EntryError;
}

/** What `byRef` answers: the entry's local id and its result. */
export interface RefEntry extends EntryResult {
  local_id: string;
}

/** An entry as its records hold it (their field names), with its place in the order. */
export interface Entry {
  id: string;
  seq: number;
  /** The till's own reference of the operation (enqueue's `ref`), and the SHA-256 of the call made with it. */
  ref?: string;
  ref_digest?: string;
  method: 'POST' | 'PUT';
  path: string;
  key: string;
  /** The JSON text sent, byte for byte; `{"$local":"..."}` in it until the first send ('' once finished). */
  body: string;
  /** Local ids the body names and that are not put in yet. */
  waits_for: string[];
  /** When it was enqueued, and when its current key was first sent (null: never). */
  at: number;
  first_attempt_at: number | null;
  state: EntryState;
  server_id: number | null;
  /** True when it was found on the server after its key expired. */
  found: boolean;
  error: EntryError | null;
}

type Named = Pick<Entry, 'id' | 'method' | 'path' | 'at' | 'ref' | 'ref_digest'>;

export type JournalRecord =
  | { t: 'open'; v: 1; salt: string; key_hash: string; at: number }
  | ({ t: 'enqueue' } & Named & Pick<Entry, 'key' | 'body' | 'waits_for'>)
  // A finished entry after a compaction.
  | ({ t: 'finished' } & Named & Pick<Entry, 'state' | 'server_id' | 'found'> & { error?: EntryError | null })
  | { t: 'attempt'; id: string; at: number }
  | { t: 'body'; id: string; body: string }
  | { t: 'rekey'; id: string; key: string }
  | { t: 'done'; id: string; server_id: number; found: boolean }
  | { t: 'failed'; id: string; error: EntryError }
  | { t: 'resend'; id: string; key: string; body: string; waits_for: string[] }
  | { t: 'discard'; id: string };

/** An entry's fields before its first record's (a `finished` one has no key, body nor wait). */
const BLANK: Omit<Entry, keyof Named | 'seq'> = {
  key: '',
  body: '',
  waits_for: [],
  first_attempt_at: null,
  state: 'pending',
  server_id: null,
  found: false,
  error: null,
};

/** What a change's record sets besides its own fields. */
const SETS: Record<string, Partial<Entry>> = {
  body: { waits_for: [] },
  rekey: { first_attempt_at: null },
  done: { state: 'done', error: null },
  failed: { state: 'failed' },
  resend: { state: 'pending', first_attempt_at: null, error: null },
  discard: { state: 'discarded' },
};

export class Entries {
  /** In the order of enqueue (a Map keeps insertion order). */
  readonly byId = new Map<string, Entry>();
  /** The entries enqueued with a `ref`, by it. */
  readonly byRef = new Map<string, Entry>();
  /** The pending entries only, in order, so that a flush never walks the history. */
  pending = new Map<string, Entry>();
  private seq = 0;

  apply(record: JournalRecord): void {
    if (record.t === 'open') return;
    if (record.t === 'enqueue' || record.t === 'finished') {
      const { t, ...fields } = record;
      const entry: Entry = { ...BLANK, ...fields, seq: this.seq++ };
      this.byId.set(entry.id, entry);
      if (entry.ref !== undefined) this.byRef.set(entry.ref, entry);
      if (entry.state === 'pending') this.pending.set(entry.id, entry);
      return;
    }
    const entry = this.byId.get(record.id);
    if (!entry) return;
    const { t, id, ...fields } = record;
    if (t === 'attempt') entry.first_attempt_at ??= record.at;
    else Object.assign(entry, SETS[t], fields);
    if (entry.state !== 'pending') this.pending.delete(id);
    else if (!this.pending.has(id)) {
      // Back in the queue (resend): in its place of the order, among the pending entries only.
      const order = [...this.pending.values(), entry].sort((a, b) => a.seq - b.seq);
      this.pending = new Map(order.map((one) => [one.id, one]));
    }
  }

  /** Entries in the order they were enqueued. */
  ordered(): Entry[] {
    return [...this.byId.values()];
  }

  /** The oldest pending entry enqueued after `seq`. */
  nextPending(seq: number): Entry | undefined {
    for (const entry of this.pending.values()) if (entry.seq > seq) return entry;
    return undefined;
  }

  /** The records that rebuild every entry as it is now: a finished entry in one short record. */
  compacted(): JournalRecord[] {
    return this.ordered().flatMap((e): JournalRecord[] => {
      const { id, method, path, at, ref, ref_digest, state, first_attempt_at } = e;
      if (state === 'done' || state === 'discarded') {
        const { server_id, found, error } = e;
        return [{ t: 'finished', id, method, path, at, ref, ref_digest, state, server_id, found, error }];
      }
      const { key, body, waits_for } = e;
      return [
        { t: 'enqueue', id, method, path, key, body, waits_for, at, ref, ref_digest },
        ...(first_attempt_at === null ? [] : [{ t: 'attempt' as const, id, at: first_attempt_at }]),
        ...(state === 'failed' ? [{ t: 'failed' as const, id, error: e.error! }] : []),
      ];
    });
  }
}
