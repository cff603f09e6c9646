// Authentication without a database round trip on most requests: a presented key and its company
// are remembered for at most a second. Every instance forgets them all at once when a key or a
// company changes (the NOTIFY of drizzle/0004_speed.sql), so a revoked key or a disabled company
// is refused on every instance at once, and within a second even if a notification is lost.

import { BoundedMap } from '../bounded-map.js';
import type { Database } from '../db/client.js';
import { metrics } from '../metrics/registry.js';
import { type AuthenticatedKey, findApiKey } from './api-keys.js';

/** The longest a remembered key is believed without asking the database again. */
export const KEY_CACHE_TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

interface Entry {
  found: AuthenticatedKey;
  loadedAt: number;
}

export interface KeyCache {
  /**
   * The key and its company, from memory when fresh; null when no such key exists. `hash` is
   * hashApiKey(presentedKey), computed once per request by the caller.
   */
  find(presentedKey: string, hash: string): Promise<AuthenticatedKey | null>;
  /** Forgets every key (a key or a company changed somewhere). */
  clear(): void;
}

export function createKeyCache(db: Database, ttlMs = KEY_CACHE_TTL_MS): KeyCache {
  const entries = new BoundedMap<Entry>(MAX_ENTRIES);
  const loading = new Map<string, Promise<AuthenticatedKey | null>>();
  // Raised by clear(): a lookup that started before a change must not store what it read.
  let generation = 0;

  const load = async (hash: string, presentedKey: string) => {
    const startedIn = generation;
    const found = await findApiKey(db, presentedKey);
    // Unknown keys are not remembered: a key created a moment ago works at once.
    if (found && startedIn === generation) entries.set(hash, { found, loadedAt: Date.now() });
    return found;
  };

  return {
    async find(presentedKey, hash) {
      const entry = entries.get(hash);
      if (entry && Date.now() - entry.loadedAt < ttlMs) {
        metrics.keyCacheLookup(true);
        return { ...entry.found, needsTouch: false };
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
      loading.clear();
    },
  };
}
