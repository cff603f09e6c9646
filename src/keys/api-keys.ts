// The API-key model shared by the request pipeline (which looks keys up) and the operator's
// actions (which create and revoke them). A key is shown once, then stored only as a SHA-256
// hash and a short display prefix.
import { createHash, randomInt } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { apiKeys, companies } from '../db/schema.js';

export type KeyMode = 'live' | 'test';

const KEY_PREFIX: Record<KeyMode, string> = { live: 'svc_sk_live_', test: 'svc_sk_test_' };
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40; // 40 base62 characters: about 238 bits of randomness.
/** What a well-formed key looks like; anything else is refused before touching the database. */
export const API_KEY_PATTERN = /^svc_sk_(live|test)_[A-Za-z0-9]{32,128}$/;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface NewKeySecret {
  key: string;
  /** e.g. `svc_sk_live_a1B2`: enough to recognise a key, useless to use it. */
  displayPrefix: string;
  secretHash: string;
}

export function generateApiKey(mode: KeyMode): NewKeySecret {
  let key = KEY_PREFIX[mode];
  for (let i = 0; i < SECRET_LENGTH; i++) key += ALPHABET[randomInt(ALPHABET.length)];
  return { key, displayPrefix: key.slice(0, KEY_PREFIX[mode].length + 4), secretHash: hashApiKey(key) };
}

/** A presented key with its company, as authentication needs them. */
export interface AuthenticatedKey {
  apiKeyId: number;
  companyId: number;
  companyName: string;
  partnerApiEnabled: boolean;
  mode: KeyMode;
  scopes: string[];
  expiresAt: Date;
  revoked: boolean;
  /** last_used_at is unset or over a minute old. */
  needsTouch: boolean;
}

/** Looks a presented key up by its hash; null when no such key exists. */
export async function findApiKey(db: Database, presentedKey: string): Promise<AuthenticatedKey | null> {
  const [row] = await db
    .select({
      apiKeyId: apiKeys.id,
      companyId: apiKeys.companyId,
      companyName: companies.name,
      partnerApiEnabled: companies.partnerApiEnabled,
      mode: apiKeys.mode,
      scopes: apiKeys.scopes,
      expiresAt: apiKeys.expiresAt,
      revoked: sql<boolean>`${apiKeys.revokedAt} is not null`,
      needsTouch: sql<boolean>`${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - interval '1 minute'`,
    })
    .from(apiKeys)
    .innerJoin(companies, eq(companies.id, apiKeys.companyId))
    .where(eq(apiKeys.secretHash, hashApiKey(presentedKey)));
  return row ?? null;
}

/** Records use at most once a minute per key, so reads do not turn into a write each. */
export async function touchApiKey(db: Database, apiKeyId: number): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiKeys.id, apiKeyId),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`)),
      ),
    );
}
