// The API-key model shared by the request pipeline (which looks keys up) and the operator's
// actions (which create and revoke them). A key is shown once, then stored only as a SHA-256
// hash and a short display prefix.
import { createHash, randomInt } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { apiKeys, companies } from '../db/schema.js';

export type KeyMode = 'live' | 'test';

const KEY_PREFIX: Record<KeyMode, string> = { live: 'svc_sk_live_', test: 'svc_sk_test_' };
/** `svc_sk_live_` and `svc_sk_test_` have the same length. */
const PREFIX_LENGTH = 12;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * The opaque part of a key issued now: 36 random base62 characters (about 214 bits), then 6 of
 * checksum: the CRC32 of the random part in base62 (the shape GitHub asks of scanned secrets).
 * Keys issued before it are 40 random characters and no checksum: only keys of exactly this
 * length are judged by their checksum, every other one is looked up as before.
 */
const RANDOM_LENGTH = 36;
const CHECKSUM_LENGTH = 6;
const CHECKSUMMED_LENGTH = RANDOM_LENGTH + CHECKSUM_LENGTH;
/** What a well-formed key looks like; anything else is refused before touching the database. */
export const API_KEY_PATTERN = /^svc_sk_(live|test)_[A-Za-z0-9]{32,128}$/;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

// 32-bit integers throughout (an Int32Array, `| 0`): it runs on every request.
const CRC_TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c;
}

/** CRC-32 (IEEE, as zlib's) of ASCII text. */
function crc32(text: string): number {
  let crc = -1;
  for (let i = 0; i < text.length; i++) {
    crc = (CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ -1) >>> 0;
}

/** The 6 base62 characters of the checksum of a key's random part (62^6 > 2^32). */
function checksumOf(random: string): string {
  let value = crc32(random);
  let text = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    text = ALPHABET[value % 62] + text;
    value = Math.floor(value / 62);
  }
  return text;
}

/**
 * Whether a well-formed key (API_KEY_PATTERN) can be one of ours: false for a key of the
 * checksummed length whose checksum does not match (a typo, a truncated copy, a guess), which is
 * then refused without a lookup. Every character counts: CRC32 catches any one changed.
 */
export function plausibleApiKey(key: string): boolean {
  if (key.length !== PREFIX_LENGTH + CHECKSUMMED_LENGTH) return true;
  const random = key.slice(PREFIX_LENGTH, PREFIX_LENGTH + RANDOM_LENGTH);
  return key.slice(PREFIX_LENGTH + RANDOM_LENGTH) === checksumOf(random);
}

export interface NewKeySecret {
  key: string;
  /** e.g. `svc_sk_live_a1B2`: enough to recognise a key, useless to use it. */
  displayPrefix: string;
  secretHash: string;
}

export function generateApiKey(mode: KeyMode): NewKeySecret {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(ALPHABET.length)];
  const key = `${KEY_PREFIX[mode]}${random}${checksumOf(random)}`;
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
