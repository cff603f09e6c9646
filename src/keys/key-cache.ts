// Authentication without a database round trip on most requests: a presented key and its company
// are remembered for at most a second. Every instance forgets them all at once when a key or a
// company changes (the NOTIFY of drizzle/0003_speed.sql), so a revoked key or a disabled company
// is refused on every instance at once, and within a second even if a notification is lost.
import type { Database } from '../db/client.js';
import { metrics } from '../ops/metrics.js';
import { type AuthenticatedKey, findApiKey, hashApiKey } from './api-keys.js';

/** The longest a remembered key is believed without asking the database again. */
export const KEY_CACHE_TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

export interface KeyCacheStats {
  hits: number;
  misses: number;
}

interface Entry {
  found: AuthenticatedKey;
  loadedAt: number;
}

export interface KeyCache {
  /** The key and its company, from memory when fresh; null when no such key exists. */
  find(presentedKey: string): Promise<AuthenticatedKey | null>;
  /** Forgets every key (a key or a company changed somewhere). */
  clear(): void;
  readonly stats: KeyCacheStats;
}

export function createKeyCache(db: Database, ttlMs = KEY_CACHE_TTL_MS): KeyCache {
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<AuthenticatedKey | null>>();
  const stats: KeyCacheStats = { hits: 0, misses: 0 };
  // Raised by clear(): a lookup that started before a change must not store what it read.
  let generation = 0;

  const load = async (hash: string, presentedKey: string) => {
    const startedIn = generation;
    try {
      const found = await findApiKey(db, presentedKey);
      // Unknown keys are not remembered: a key created a moment ago works at once.
      if (found && startedIn === generation) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(hash, { found, loadedAt: Date.now() });
      }
      return found;
    } finally {
      loading.delete(hash);
    }
  };

  return {
    stats,
    async find(presentedKey) {
      const hash = hashApiKey(presentedKey);
      const entry = entries.get(hash);
      if (entry && Date.now() - entry.loadedAt < ttlMs) {
        stats.hits++;
        metrics.keyCacheLookup(true);
        return { ...entry.found, needsTouch: false };
      }
      stats.misses++;
      metrics.keyCacheLookup(false);
      let pending = loading.get(hash);
      if (!pending) {
        pending = load(hash, presentedKey);
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
