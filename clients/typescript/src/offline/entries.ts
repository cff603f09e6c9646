// The queue's entries, rebuilt from the journal's records (the journal is the only truth: memory
// is its replay), and what the queue answers about them. Each record names one entry and one
// change of it; a compaction (`compacted`) folds each entry's history into its current state, and a
// finished entry (done or discarded) into one short record that still answers `result` and `byRef`.

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

export interface Entry {
  id: string;
  seq: number;
  /** The till's own reference of the operation (enqueue's `ref`), or null. */
  ref: string | null;
  /** SHA-256 of the method, path and body given to enqueue with `ref`: what a repeat must match. */
  refDigest: string | null;
  method: 'POST' | 'PUT';
  path: string;
  key: string;
  /** The JSON text sent, byte for byte; `{"$local":"..."}` in it until the first send ('' once compacted). */
  body: string;
  /** Local ids the body names and that are not put in yet. */
  waitsFor: string[];
  enqueuedAt: number;
  /** When the current key was first sent (null: never sent with it). */
  firstAttemptAt: number | null;
  state: EntryState;
  serverId: number | null;
  /** True when the entry was found on the server after its key expired. */
  found: boolean;
  error: EntryError | null;
}

type Ref = { ref?: string; ref_digest?: string };
type Enqueued = {
  t: 'enqueue';
  id: string;
  method: 'POST' | 'PUT';
  path: string;
  key: string;
  body: string;
  waits_for: string[];
  at: number;
} & Ref;

export type JournalRecord =
  | { t: 'open'; v: 1; salt: string; key_hash: string; at: number }
  | Enqueued
  | { t: 'body'; id: string; body: string }
  | { t: 'attempt'; id: string; at: number }
  | { t: 'rekey'; id: string; key: string }
  | { t: 'done'; id: string; server_id: number; found: boolean }
  | { t: 'failed'; id: string; error: EntryError }
  | { t: 'resend'; id: string; key: string; body: string; waits_for: string[] }
  | { t: 'discard'; id: string }
  // A finished entry after a compaction: what result, byRef and a later `$local` need.
  | ({
      t: 'finished';
      id: string;
      method: 'POST' | 'PUT';
      path: string;
      at: number;
      state: 'done' | 'discarded';
      server_id: number | null;
      found: boolean;
      error?: EntryError;
    } & Ref);

export class Entries {
  /** In the order of enqueue (a Map keeps insertion order). */
  readonly byId = new Map<string, Entry>();
  /** The entries enqueued with a `ref`, by it. */
  readonly byRef = new Map<string, Entry>();
  /** The pending entries only, so that a flush never walks the history. */
  readonly pending = new Map<string, Entry>();
  private nextSeq = 0;

  apply(record: JournalRecord): void {
    if (record.t === 'open') return;
    if (record.t === 'enqueue' || record.t === 'finished') {
      const entry: Entry = {
        id: record.id,
        seq: this.nextSeq++,
        ref: record.ref ?? null,
        refDigest: record.ref_digest ?? null,
        method: record.method,
        path: record.path,
        key: record.t === 'enqueue' ? record.key : '',
        body: record.t === 'enqueue' ? record.body : '',
        waitsFor: record.t === 'enqueue' ? record.waits_for : [],
        enqueuedAt: record.at,
        firstAttemptAt: null,
        state: record.t === 'enqueue' ? 'pending' : record.state,
        serverId: record.t === 'enqueue' ? null : record.server_id,
        found: record.t === 'finished' && record.found,
        error: (record.t === 'finished' && record.error) || null,
      };
      this.byId.set(record.id, entry);
      if (entry.ref !== null) this.byRef.set(entry.ref, entry);
      if (entry.state === 'pending') this.pending.set(entry.id, entry);
      return;
    }
    const entry = this.byId.get(record.id);
    if (!entry) return;
    if (record.t === 'body') Object.assign(entry, { body: record.body, waitsFor: [] });
    else if (record.t === 'attempt') entry.firstAttemptAt ??= record.at;
    else if (record.t === 'rekey') Object.assign(entry, { key: record.key, firstAttemptAt: null });
    else if (record.t === 'done')
      Object.assign(entry, { state: 'done', serverId: record.server_id, found: record.found, error: null });
    else if (record.t === 'failed') Object.assign(entry, { state: 'failed', error: record.error });
    else if (record.t === 'discard') entry.state = 'discarded';
    else if (record.t === 'resend') {
      const { key, body, waits_for: waitsFor } = record;
      Object.assign(entry, { state: 'pending', key, body, waitsFor, firstAttemptAt: null, error: null });
    }
    if (entry.state !== 'pending') this.pending.delete(entry.id);
    else if (!this.pending.has(entry.id)) {
      // Back in the queue (resend): in its place of the order, among the pending entries only.
      const order = [...this.pending.values(), entry].sort((a, b) => a.seq - b.seq);
      this.pending.clear();
      for (const one of order) this.pending.set(one.id, one);
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
    const records: JournalRecord[] = [];
    for (const e of this.byId.values()) {
      const ref = e.ref !== null && e.refDigest !== null ? { ref: e.ref, ref_digest: e.refDigest } : {};
      const { id, method, path } = e;
      if (e.state === 'done' || e.state === 'discarded') {
        const error = e.error ? { error: e.error } : {};
        const finished = { server_id: e.serverId, found: e.found, state: e.state, ...error };
        records.push({ t: 'finished', id, method, path, at: e.enqueuedAt, ...ref, ...finished });
        continue;
      }
      const { key, body, waitsFor: waits_for, enqueuedAt: at } = e;
      records.push({ t: 'enqueue', id, method, path, key, body, waits_for, at, ...ref });
      if (e.firstAttemptAt !== null) records.push({ t: 'attempt', id, at: e.firstAttemptAt });
      if (e.state === 'failed') records.push({ t: 'failed', id, error: e.error! });
    }
    return records;
  }
}
