// The queue's entries, rebuilt from the journal's records (the journal is the only truth: memory
// is its replay). Each record names one entry and one change of it.

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
  /** The JSON text sent, byte for byte; `{"$local":"..."}` in it until the first send. */
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

export type JournalRecord =
  | { t: 'open'; v: 1; salt: string; key_hash: string; at: number }
  | {
      t: 'enqueue';
      id: string;
      method: 'POST' | 'PUT';
      path: string;
      key: string;
      body: string;
      waits_for: string[];
      at: number;
      /** Absent in journals written before `ref` existed, and when enqueue had none. */
      ref?: string;
      ref_digest?: string;
    }
  | { t: 'body'; id: string; body: string }
  | { t: 'attempt'; id: string; at: number }
  | { t: 'rekey'; id: string; key: string }
  | { t: 'done'; id: string; server_id: number; found: boolean }
  | { t: 'failed'; id: string; error: EntryError }
  | { t: 'resend'; id: string; key: string; body: string; waits_for: string[] }
  | { t: 'discard'; id: string };

export class Entries {
  readonly byId = new Map<string, Entry>();
  /** The entries enqueued with a `ref`, by it. */
  readonly byRef = new Map<string, Entry>();
  private nextSeq = 0;

  apply(record: JournalRecord): void {
    if (record.t === 'open') return;
    if (record.t === 'enqueue') {
      const entry: Entry = {
        id: record.id,
        seq: this.nextSeq++,
        ref: record.ref ?? null,
        refDigest: record.ref_digest ?? null,
        method: record.method,
        path: record.path,
        key: record.key,
        body: record.body,
        waitsFor: record.waits_for,
        enqueuedAt: record.at,
        firstAttemptAt: null,
        state: 'pending',
        serverId: null,
        found: false,
        error: null,
      };
      this.byId.set(record.id, entry);
      if (entry.ref !== null) this.byRef.set(entry.ref, entry);
      return;
    }
    const entry = this.byId.get(record.id);
    if (!entry) return;
    switch (record.t) {
      case 'body':
        entry.body = record.body;
        entry.waitsFor = [];
        break;
      case 'attempt':
        entry.firstAttemptAt ??= record.at;
        break;
      case 'rekey':
        entry.key = record.key;
        entry.firstAttemptAt = null;
        break;
      case 'done':
        entry.state = 'done';
        entry.serverId = record.server_id;
        entry.found = record.found;
        entry.error = null;
        break;
      case 'failed':
        entry.state = 'failed';
        entry.error = record.error;
        break;
      case 'resend':
        entry.state = 'pending';
        entry.key = record.key;
        entry.body = record.body;
        entry.waitsFor = record.waits_for;
        entry.firstAttemptAt = null;
        entry.error = null;
        break;
      case 'discard':
        entry.state = 'discarded';
        break;
    }
  }

  /** Entries in the order they were enqueued. */
  ordered(): Entry[] {
    return [...this.byId.values()].sort((a, b) => a.seq - b.seq);
  }
}
