// The steps every API request goes through before its handler, in the order of decisions.md:
// Origin refusal, authentication (with the per-IP limit for failures), per-key and per-company
// limits, company enabled, test mode read-only, scope. Idempotency and validation come after.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, ErrorCode } from '../errors.js';
import { API_KEY_PATTERN, findApiKey, touchApiKey } from '../operations/api-keys.js';

const BEARER = 'Bearer ';

export function isWriteMethod(method: string): boolean {
  return method === 'POST' || method === 'PUT';
}

function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith(BEARER)) return null;
  const key = header.slice(BEARER.length);
  return API_KEY_PATTERN.test(key) ? key : null;
}

export function registerRequestPipeline(app: FastifyInstance): void {
  app.decorateRequest('auth', null);

  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.origin !== undefined) throw new ApiError(ErrorCode.BrowserUseForbidden);

    const key = presentedKey(request);
    const found = key ? await findApiKey(app.db, key) : null;
    const failure = !found
      ? ErrorCode.InvalidApiKey
      : found.revoked
        ? ErrorCode.ApiKeyRevoked
        : found.expired
          ? ErrorCode.ApiKeyExpired
          : null;
    if (failure || !found) {
      await app.rateLimiter.consumeAnonymous(request.ip);
      throw new ApiError(failure ?? ErrorCode.InvalidApiKey);
    }

    request.auth = {
      apiKeyId: found.apiKeyId,
      companyId: found.companyId,
      companyName: found.companyName,
      mode: found.mode,
      scopes: found.scopes,
    };
    request.log = request.log.child({ api_key_id: found.apiKeyId, company_id: found.companyId });
    reply.log = request.log;
    if (found.needsTouch) await touchApiKey(app.db, found.apiKeyId);

    const isWrite = isWriteMethod(request.method);
    const limitHeaders = await app.rateLimiter.consumeKey({
      apiKeyId: found.apiKeyId,
      companyId: found.companyId,
      isWrite,
    });
    reply.headers(limitHeaders);

    if (!found.partnerApiEnabled) throw new ApiError(ErrorCode.PartnerApiDisabled);
    if (isWrite && found.mode === 'test') throw new ApiError(ErrorCode.TestModeReadOnly);
    const scope = request.routeOptions.config.scope;
    if (!scope || !found.scopes.includes(scope)) {
      throw new ApiError(ErrorCode.InsufficientScope, {
        hint: `Esta operação exige a permissão "${scope}"; peça ao suporte uma chave que a inclua.`,
      });
    }
  });
}
