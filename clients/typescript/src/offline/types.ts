// What the offline queue takes and answers (its options, results and errors); entries.ts has the
// entries' own shapes.
import type { PartnerApiOptions } from '../client.js';
import type { EntryError } from './entries.js';

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

export interface EnqueueOptions {
  /** The till's own identifier of the operation, such as its sale number (1 to 200 characters). */
  ref?: string;
}

export class StoreKeyMismatchError extends Error {
  override readonly name = 'StoreKeyMismatchError';
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
