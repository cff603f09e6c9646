// Steps 3 to 8 of the pipeline (src/http/pipeline.ts): who is calling and whether they may.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from '../errors.js';
import { API_KEY_PATTERN, hashApiKey, plausibleApiKey, touchApiKey } from '../keys/api-keys.js';
import { callerOf, isWriteMethod, stateOf } from './request-state.js';

const BEARER = 'Bearer ';
/**
 * Every 401 says how keys are sent (RFC 6750): the scheme alone when none was presented, with
 * `error="invalid_token"` when one was (unknown, malformed, expired or revoked alike).
 */
const CHALLENGE = 'Bearer realm="partner-api"';
const INVALID_TOKEN_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;

/** 3. Browsers are refused before the key is even looked up. */
export function refuseBrowsers(request: FastifyRequest): void {
  if (request.headers.origin !== undefined) throw new ApiError('browser_use_forbidden');
}

function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith(BEARER)) return null;
  const key = header.slice(BEARER.length);
  // A key whose checksum is wrong (a typo) is refused like a malformed one: no lookup at all.
  return API_KEY_PATTERN.test(key) && plausibleApiKey(key) ? key : null;
}

/**
 * 4. The key: a request without a valid key counts toward the per-IP limit (401 within it, 429
 * past it). A valid key is never judged by that limit, whether or not it was seen before: every
 * key is looked up, except those the key cache remembers as bad (src/keys/key-cache.ts), which is
 * what keeps a flood of bad keys from costing a query each.
 */
export async function authenticate(request: FastifyRequest): Promise<void> {
  const { db, config, rateLimiter, keyCache, listMemory } = request.server;
  const key = presentedKey(request);
  const found = key ? await keyCache.find(key, hashApiKey(key)) : null;
  const refusal = !found
    ? 'invalid_api_key'
    : found.revoked
      ? 'api_key_revoked'
      : found.expiresAt.getTime() <= Date.now()
        ? 'api_key_expired'
        : null;
  const state = stateOf(request);
  if (!found || !key || refusal) {
    if (found) state.refusedKey = found; // logged under its key (src/request-log/)
    const limits = await rateLimiter.consumeAnonymous(request.ip);
    const presented =
      typeof request.headers.authorization === 'string' && request.headers.authorization !== '';
    const headers = { ...limits, 'WWW-Authenticate': presented ? INVALID_TOKEN_CHALLENGE : CHALLENGE };
    throw new ApiError(refusal ?? 'invalid_api_key', { headers });
  }
  const { apiKeyId, companyId, companyName, partnerApiEnabled, mode, scopes } = found;
  state.caller = { apiKeyId, companyId, companyName, partnerApiEnabled, mode, scopes };
  state.companyContext = {
    db,
    companyId,
    timeZone: config.timeZone,
    lists: listMemory,
    actor: {
      kind: 'api_key',
      apiKeyId,
      last4: key.slice(-4),
      requestId: String(request.id),
      idempotencyKey: null,
    },
  };
  // The request's own logger (a child made for this request) carries the key and company from here.
  // (no bindings on the silent logger of tests that turn logging off)
  (request.log as Partial<Logger>).setBindings?.({ api_key_id: apiKeyId, company_id: companyId });
  if (found.needsTouch) await touchApiKey(db, apiKeyId);
}

/** 5. Per-key and per-company limits; every request of a valid key counts, refused or not. */
export async function limit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { apiKeyId, companyId } = callerOf(request);
  const isWrite = isWriteMethod(request.method);
  reply.headers(await request.server.rateLimiter.consumeKey({ apiKeyId, companyId, isWrite }));
}

/** 6. The company must have its partner API enabled. */
export function requireEnabledCompany(request: FastifyRequest): void {
  if (!callerOf(request).partnerApiEnabled) throw new ApiError('partner_api_disabled');
}

/** 7. A test key never writes, whatever its scopes. */
export function refuseTestModeWrites(request: FastifyRequest): void {
  if (isWriteMethod(request.method) && callerOf(request).mode === 'test') {
    throw new ApiError('test_mode_read_only');
  }
}

/** 8. The route's scope (every route declares one: checked when it is registered). */
export function requireScope(request: FastifyRequest): void {
  const scope = request.routeOptions.config.scope;
  if (!scope || !callerOf(request).scopes.includes(scope)) {
    throw new ApiError('insufficient_scope', {
      hint: `Esta operação exige a permissão "${scope}"; peça ao suporte uma chave que a inclua.`,
    });
  }
}
