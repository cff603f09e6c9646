// API keys: generated here, shown once, stored only as a SHA-256 hash and a short display prefix.
import { createHash, randomInt } from 'node:crypto';
import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { apiKeys, companies } from '../db/schema.js';
import { OperationError } from './errors.js';
import { SCOPES, type Scope } from './scopes.js';

export { SCOPES, type Scope };

export type KeyMode = 'live' | 'test';

const KEY_PREFIX: Record<KeyMode, string> = { live: 'svc_sk_live_', test: 'svc_sk_test_' };
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40; // 40 base62 characters: about 238 bits of randomness.
/** What a well-formed key looks like; anything else is refused before touching the database. */
export const API_KEY_PATTERN = /^svc_sk_(live|test)_[A-Za-z0-9]{32,128}$/;
export const MAX_KEY_DAYS = 365;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function generateSecret(): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  return secret;
}

export interface CreateApiKeyInput {
  companyId: number;
  mode?: KeyMode;
  scopes?: readonly string[];
  days?: number;
}

export interface CreatedApiKey {
  id: number;
  key: string;
  mode: KeyMode;
  scopes: Scope[];
  expires_at: string;
  company_id: number;
  display_prefix: string;
}

export function parseScopes(scopes: readonly string[] | undefined): Scope[] {
  if (scopes === undefined || (scopes.length === 1 && scopes[0] === 'all')) return [...SCOPES];
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) {
    throw new OperationError(`unknown scope(s): ${unknown.join(', ')}; valid: ${SCOPES.join(', ')} or all`);
  }
  if (scopes.length === 0) throw new OperationError('a key needs at least one scope');
  return SCOPES.filter((scope) => scopes.includes(scope));
}

export async function createApiKey(db: Database, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const mode = input.mode ?? 'live';
  if (mode !== 'live' && mode !== 'test') throw new OperationError('mode must be live or test');
  const days = input.days ?? MAX_KEY_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_KEY_DAYS) {
    throw new OperationError(`days must be an integer from 1 to ${MAX_KEY_DAYS}`);
  }
  const scopes = parseScopes(input.scopes);
  const [company] = await db
    .select({ id: companies.id })
    .from(companies)
    .where(eq(companies.id, input.companyId));
  if (!company) throw new OperationError(`company ${input.companyId} does not exist`);

  const key = KEY_PREFIX[mode] + generateSecret();
  const displayPrefix = key.slice(0, KEY_PREFIX[mode].length + 4);
  const [row] = await db
    .insert(apiKeys)
    .values({
      companyId: input.companyId,
      mode,
      displayPrefix,
      secretHash: hashApiKey(key),
      scopes,
      expiresAt: sql`now() + make_interval(days => ${days})`,
    })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return {
    id: row.id,
    key,
    mode,
    scopes,
    expires_at: row.expiresAt.toISOString(),
    company_id: row.companyId,
    display_prefix: displayPrefix,
  };
}

export interface ApiKeySummary {
  id: number;
  display_prefix: string;
  mode: KeyMode;
  scopes: string[];
  status: 'active' | 'revoked' | 'expired';
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

export async function listApiKeys(db: Database, companyId: number): Promise<ApiKeySummary[]> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.companyId, companyId))
    .orderBy(asc(apiKeys.id));
  const now = Date.now();
  return rows.map((row) => ({
    id: row.id,
    display_prefix: row.displayPrefix,
    mode: row.mode,
    scopes: row.scopes,
    status: row.revokedAt ? 'revoked' : row.expiresAt.getTime() <= now ? 'expired' : 'active',
    expires_at: row.expiresAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  }));
}

export async function revokeApiKey(db: Database, keyId: number): Promise<{ id: number; revoked_at: string }> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(eq(apiKeys.id, keyId))
    .returning({ id: apiKeys.id, revokedAt: apiKeys.revokedAt });
  if (!row?.revokedAt) throw new OperationError(`API key ${keyId} does not exist`);
  return { id: row.id, revoked_at: row.revokedAt.toISOString() };
}

export interface AuthenticatedKey {
  apiKeyId: number;
  companyId: number;
  companyName: string;
  partnerApiEnabled: boolean;
  mode: KeyMode;
  scopes: string[];
  expired: boolean;
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
      expired: sql<boolean>`${apiKeys.expiresAt} <= now()`,
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
