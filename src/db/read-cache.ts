// Single reads on the embedded PGlite without a trip into WebAssembly: PGlite runs every query on
// the one thread that also serves HTTP (six protocol calls and a plan per query, two thirds of a
// read's time), so a repeated read of the same row is answered from memory.
//
// Why it is exact: PGlite is one database in one process (the DATA_DIR lock keeps every other
// process out; commands reach it through this process's admin socket), so every change to its data
// goes through the client given to drizzle. That client counts every call (trackWrites) as a
// possible write: it raises the write epoch when it starts and again when it ends, and is "in
// flight" in between. Nothing is guessed from a statement's text (a SELECT may call a function
// that writes). A read is a read only by declaration of the code that issues it: fixed table reads
// (src/db/prepared.ts) and statements declared reads go to the same PGlite uncounted, as does
// whatever is issued through `readOnly(db)` (src/db/client.ts), the path for list reads: counted,
// every list would make the next single read check data_versions again.
// Only reads of the tables whose every change raises data_versions in the same transaction
// (VERSIONED_TABLES, migration 0004) are remembered, with the state of data_versions read while
// nothing was in flight. After any write (the webhook worker's polls included) that state is read
// once more: unchanged, no row of those tables changed and what is remembered stays; changed, it
// is all forgotten. A read is remembered only when nothing was in flight and the epoch did not
// move from before its state was read until after the read ended, and answered from memory only
// while nothing is in flight and the epoch has not moved since. Two apps sharing one PGlite handle
// share its counter and its cache. PostgreSQL has no such cache: many instances write to it.
import type { PGlite } from '@electric-sql/pglite';
import { BoundedMap } from '../bounded-map.js';

/** Reads remembered at most, per database. */
const MAX_ENTRIES = 20_000;

/** The changes made through one PGlite client. */
export class WriteTracker {
  /** Raised when a possible write starts and when it ends. */
  epoch = 0;
  /** Possible writes started and not yet ended. */
  inFlight = 0;

  async around<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.epoch++;
    try {
      return await work();
    } finally {
      this.inFlight--;
      this.epoch++;
    }
  }
}

/**
 * The PGlite client drizzle is given, counting every call that reaches the database in `tracker`
 * as a possible write. Reads go around it, through the client it wraps.
 */
export function trackWrites(client: PGlite, tracker: WriteTracker): PGlite {
  const counted = new Set([
    'query',
    'exec',
    'transaction',
    'sql',
    'execProtocol',
    'execProtocolRaw',
    'execProtocolStream',
    'execProtocolRawStream',
  ]);
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (typeof property === 'string' && counted.has(property)) {
        return (...args: unknown[]) => tracker.around(() => value.apply(target, args));
      }
      return value.bind(target);
    },
  });
}

/** The tables whose every insert, update and delete raises data_versions (migration 0004). */
export const VERSIONED_TABLES: ReadonlySet<string> = new Set([
  'customers',
  'products',
  'invoices',
  'payments',
]);

export interface ReadCache {
  /**
   * `load`'s rows, or the same rows remembered under `key` while no row of VERSIONED_TABLES has
   * changed. `load` must read only those tables, and callers must not change the rows.
   */
  read<Row>(key: string, load: () => Promise<Row[]>): Promise<Row[]>;
  readonly size: number;
  /** How many times the state of data_versions was read: once after every possible write. */
  readonly checks: number;
}

/**
 * `readVersions` reads the whole state of data_versions as one text (around the tracker: it is
 * not counted as a write).
 */
export function createReadCache(
  tracker: WriteTracker,
  readVersions: () => Promise<string>,
  max = MAX_ENTRIES,
): ReadCache {
  const entries = new BoundedMap<unknown[]>(max);
  /** The epoch at which `versions` was read with nothing in flight (-1: never). */
  let knownEpoch = -1;
  let versions: string | null = null;
  let reading: Promise<void> | null = null;
  let checks = 0;

  /** Brings `versions` to the current epoch; false when writes kept it from being read quietly. */
  const refresh = async (): Promise<boolean> => {
    if (!reading) {
      const epoch = tracker.epoch;
      checks++;
      reading = readVersions()
        .then((now) => {
          if (tracker.inFlight !== 0 || tracker.epoch !== epoch) return;
          if (now !== versions) entries.clear();
          versions = now;
          knownEpoch = epoch;
        })
        .finally(() => {
          reading = null;
        });
    }
    await reading;
    return tracker.inFlight === 0 && tracker.epoch === knownEpoch;
  };

  return {
    async read<Row>(key: string, load: () => Promise<Row[]>): Promise<Row[]> {
      if (tracker.inFlight !== 0) return load();
      if (tracker.epoch !== knownEpoch && !(await refresh())) return load();
      const remembered = entries.get(key);
      if (remembered) return remembered as Row[];
      const epoch = tracker.epoch;
      const rows = await load();
      if (tracker.inFlight === 0 && tracker.epoch === epoch && knownEpoch === epoch) entries.set(key, rows);
      return rows;
    },
    get size() {
      return entries.size;
    },
    get checks() {
      return checks;
    },
  };
}

/**
 * The cache of a database handle's root drizzle `db` (never of one of its transactions, which
 * may see their own changes before they commit). Typed as any object: this module is below
 * client.ts, which attaches it.
 */
const caches = new WeakMap<object, ReadCache>();

export function attachReadCache(db: object, cache: ReadCache): void {
  caches.set(db, cache);
}

/** The read cache of `db`: none on PostgreSQL and inside a transaction. */
export function readCacheOf(db: object): ReadCache | undefined {
  return caches.get(db);
}
