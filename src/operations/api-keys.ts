// The operator's actions on API keys: create (the key is shown once), list (never the secret),
// revoke, roll (a replacement, the old key kept for a grace). The key model itself (format,
// hash, lookup) is src/keys/.
import { asc, eq, sql } from 'drizzle-orm';
import type { ActingContext } from '../context.js';
import { apiKeys, companies } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { generateApiKey, type KeyMode } from '../keys/api-keys.js';
import { SCOPES, type Scope } from '../keys/scopes.js';
import { OperationError } from './errors.js';

export { type KeyMode, SCOPES, type Scope };

export const MAX_KEY_DAYS = 365;

const DAY_MS = 24 * 60 * 60 * 1000;

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
    throw new OperationError({
      key: 'refused.unknown_scopes',
      params: { scopes: unknown.join(', '), valid: SCOPES.join(', ') },
    });
  }
  if (scopes.length === 0) throw new OperationError({ key: 'refused.no_scope' });
  return SCOPES.filter((scope) => scopes.includes(scope));
}

/** A new key of the company; `expires_at` in the context's time zone. */
export async function createApiKey(context: ActingContext, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const { db, timeZone } = context;
  const mode = input.mode ?? 'live';
  if (mode !== 'live' && mode !== 'test') throw new OperationError({ key: 'refused.key_mode' });
  const days = input.days ?? MAX_KEY_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_KEY_DAYS) {
    throw new OperationError({ key: 'refused.key_days', params: { max: MAX_KEY_DAYS } });
  }
  const scopes = parseScopes(input.scopes);
  const [company] = await db
    .select({ id: companies.id })
    .from(companies)
    .where(eq(companies.id, input.companyId));
  if (!company) throw new OperationError({ key: 'refused.company_missing', params: { id: input.companyId } });

  const { key, displayPrefix, secretHash } = generateApiKey(mode);
  const [row] = await db
    .insert(apiKeys)
    .values({
      companyId: input.companyId,
      mode,
      displayPrefix,
      secretHash,
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
    expires_at: formatTimestamp(row.expiresAt, timeZone),
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
  /** Whole days until it expires (a part of a day counts as one); 0 once expired, null if revoked. */
  days_left: number | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

export async function listApiKeys(context: ActingContext, companyId: number): Promise<ApiKeySummary[]> {
  const { db, timeZone } = context;
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
    expires_at: formatTimestamp(row.expiresAt, timeZone),
    days_left: row.revokedAt ? null : Math.max(0, Math.ceil((row.expiresAt.getTime() - now) / DAY_MS)),
    revoked_at: row.revokedAt ? formatTimestamp(row.revokedAt, timeZone) : null,
    last_used_at: row.lastUsedAt ? formatTimestamp(row.lastUsedAt, timeZone) : null,
    created_at: formatTimestamp(row.createdAt, timeZone),
  }));
}

export async function revokeApiKey(
  context: ActingContext,
  keyId: number,
): Promise<{ id: number; revoked_at: string }> {
  const [row] = await context.db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(eq(apiKeys.id, keyId))
    .returning({ id: apiKeys.id, revokedAt: apiKeys.revokedAt });
  if (!row?.revokedAt) throw new OperationError({ key: 'refused.key_missing', params: { id: keyId } });
  return { id: row.id, revoked_at: formatTimestamp(row.revokedAt, context.timeZone) };
}

/** The longest grace `keys roll` gives the old key. */
export const MAX_ROLL_GRACE_MS = 30 * DAY_MS;
export const DEFAULT_ROLL_GRACE_MS = DAY_MS;

export interface RolledApiKey extends CreatedApiKey {
  /** The key rolled: it keeps working until `expires_at`, then answers 401 api_key_expired. */
  previous_key: { id: number; expires_at: string };
}

/**
 * Replaces a key: a new one of the same company, mode and scopes, valid as long as the old one was
 * when it was issued (its expiry minus its creation), shown once; the old one keeps working for
 * `graceMs` (never past its own expiry), then is expired. Changing its expiry announces the change
 * to every instance (NOTIFY api_keys_changed), and the operation returns once every live instance
 * has applied it (src/instances/), so the end of the grace holds everywhere. A revoked,
 * expired or already rolled key is refused.
 */
export async function rollApiKey(
  context: ActingContext,
  keyId: number,
  graceMs: number,
): Promise<RolledApiKey> {
  const { db, timeZone } = context;
  const [old] = await db
    .select({
      companyId: apiKeys.companyId,
      mode: apiKeys.mode,
      scopes: apiKeys.scopes,
      revoked: sql<boolean>`${apiKeys.revokedAt} is not null`,
      expired: sql<boolean>`${apiKeys.expiresAt} <= now()`,
      replacedBy: apiKeys.replacedByKeyId,
    })
    .from(apiKeys)
    .where(eq(apiKeys.id, keyId))
    .for('update');
  if (!old) throw new OperationError({ key: 'refused.key_missing', params: { id: keyId } });
  if (old.revoked) throw new OperationError({ key: 'refused.key_revoked', params: { id: keyId } });
  if (old.replacedBy !== null) {
    throw new OperationError({
      key: 'refused.key_rolled',
      params: { id: keyId, replacement: old.replacedBy },
    });
  }
  if (old.expired) throw new OperationError({ key: 'refused.key_expired', params: { id: keyId } });

  const { key, displayPrefix, secretHash } = generateApiKey(old.mode);
  const [row] = await db
    .insert(apiKeys)
    .values({
      companyId: old.companyId,
      mode: old.mode,
      displayPrefix,
      secretHash,
      scopes: old.scopes,
      // As long as the old key was valid when issued (its --days), at most MAX_KEY_DAYS.
      expiresAt: sql`now() + (select least(k.expires_at - k.created_at, make_interval(days => ${MAX_KEY_DAYS}))
        from ${apiKeys} k where k.id = ${keyId})`,
    })
    .returning();
  if (!row) throw new Error('insert returned no row');
  const [previous] = await db
    .update(apiKeys)
    .set({
      expiresAt: sql`least(${apiKeys.expiresAt}, now() + ${graceMs} * interval '1 millisecond')`,
      replacedByKeyId: row.id,
    })
    .where(eq(apiKeys.id, keyId))
    .returning({ expiresAt: apiKeys.expiresAt });
  if (!previous) throw new Error('update returned no row');
  return {
    id: row.id,
    key,
    mode: row.mode,
    scopes: SCOPES.filter((scope) => row.scopes.includes(scope)),
    expires_at: formatTimestamp(row.expiresAt, timeZone),
    company_id: row.companyId,
    display_prefix: displayPrefix,
    previous_key: { id: keyId, expires_at: formatTimestamp(previous.expiresAt, timeZone) },
  };
}
