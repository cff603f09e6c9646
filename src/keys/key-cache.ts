// Authentication without a database round trip on most requests. Two memories, both bounded:
// - a key that exists, and its company, for at most a second;
// - the digest of a key KNOWN TO BE BAD (looked up, no such key), so that a client repeating a
//   wrong key, or a flood of them, costs no query. This is how floods of bad keys stay cheap:
//   the per-IP limit never refuses a valid key (decisions.md, order of checks, step 4), so every
//   key not remembered as bad is looked up.
// Every instance forgets both at once when a key is created or changed, or a company changes (the
// NOTIFY api_keys_changed of the migrations, also sent on every new key), and the change's
// operation waits until every live instance has said so (src/instances/), so a new key works at
// once everywhere and a revoked key or a disabled company is refused everywhere from the next
// request. An instance that may have missed a change (`trusted()` false: src/instances/sync.ts)
// believes neither memory and looks every key up. A remembered key also expires after `ttlMs`
// (KEY_CACHE_TTL_MS, a testing knob). A lost notification cannot keep a new key out either:
// a digest remembered as bad was presented before its key existed, which a random key of about
// 238 bits never is; and bad digests are forgotten after BAD_KEY_TTL_MS anyway.

import { BoundedMap } from '../bounded-map.js';
import type { Database } from '../db/client.js';
import { metrics } from '../metrics/registry.js';
import { type AuthenticatedKey, findApiKey } from './api-keys.js';

/** The longest a remembered key is believed without asking the database again (KEY_CACHE_TTL_MS). */
export const KEY_CACHE_TTL_MS = 1000;
const MAX_ENTRIES = 10_000;
/** Digests of bad keys remembered at most (64 hex characters each: about 2 MB when full). */
export const MAX_BAD_KEYS = 10_000;
/** A bad key is looked up again after this long, notification or not. */
export const BAD_KEY_TTL_MS = 10 * 60 * 1000;

interface Entry {
  found: AuthenticatedKey;
  loadedAt: number;
}

export interface KeyCache {
  /**
   * The key and its company, from memory when fresh; null when no such key exists (from memory
   * when the key is remembered as bad). `hash` is hashApiKey(presentedKey), computed once per
   * request by the caller.
   */
  find(presentedKey: string, hash: string): Promise<AuthenticatedKey | null>;
  /** Forgets every key, good and bad (a key or a company changed somewhere). */
  clear(): void;
}

export interface KeyCacheOptions {
  /** KEY_CACHE_TTL_MS. */
  ttlMs?: number;
  /** Whether what is remembered may be believed now (false: the instance may have missed a change). */
  trusted?: () => boolean;
}

export function createKeyCache(db: Database, options: KeyCacheOptions = {}): KeyCache {
  const ttlMs = options.ttlMs ?? KEY_CACHE_TTL_MS;
  const trusted = options.trusted ?? (() => true);
  const entries = new BoundedMap<Entry>(MAX_ENTRIES);
  /** Digest of a key that does not exist -> when that was learnt. */
  const badKeys = new BoundedMap<number>(MAX_BAD_KEYS);
  const loading = new Map<string, Promise<AuthenticatedKey | null>>();
  // Raised by clear(): a lookup that started before a change must not store what it read (a key
  // created meanwhile must not be remembered as bad).
  let generation = 0;

  const load = async (hash: string, presentedKey: string) => {
    const startedIn = generation;
    const found = await findApiKey(db, presentedKey);
    if (startedIn === generation) {
      if (found) entries.set(hash, { found, loadedAt: Date.now() });
      else badKeys.set(hash, Date.now());
    }
    return found;
  };

  const knownBad = (hash: string) => {
    const since = badKeys.get(hash);
    if (since === undefined) return false;
    if (Date.now() - since < BAD_KEY_TTL_MS) return true;
    badKeys.delete(hash);
    return false;
  };

  return {
    async find(presentedKey, hash) {
      if (!trusted()) {
        // Behind on changes, maybe: the database answers, not a memory (nor a lookup begun earlier).
        metrics.keyCacheLookup(false);
        return load(hash, presentedKey);
      }
      const entry = entries.get(hash);
      if (entry && Date.now() - entry.loadedAt < ttlMs) {
        metrics.keyCacheLookup(true);
        return { ...entry.found, needsTouch: false };
      }
      if (knownBad(hash)) {
        metrics.keyCacheLookup(true);
        return null;
      }
      metrics.keyCacheLookup(false);
      let pending = loading.get(hash);
      if (!pending) {
        // Concurrent requests with the same key share one lookup.
        const started = load(hash, presentedKey).finally(() => {
          if (loading.get(hash) === started) loading.delete(hash);
        });
        pending = started;
        loading.set(hash, pending);
      }
      return pending;
    },
    clear() {
      generation++;
      entries.clear();
      badKeys.clear();
      loading.clear();
    },
  };
}
