// The order of checks on every API request (decisions.md "Order of checks on a request"), one
// step per line. Fastify runs the hooks of a phase in the order they are added here, and the
// phases in this order: onRequest -> body parsing -> preValidation -> schema validation ->
// preHandler -> the route's handler. Steps 1 and 2 are the framework's and app.ts's:
//   1. no such route or method: the framework's generic 404 (nothing below runs);
//   2. every response carries X-Request-Id (a root hook in app.ts, so the 404 carries it too).
import type { FastifyInstance, RouteOptions } from 'fastify';
import {
  authenticate,
  limit,
  refuseBrowsers,
  refuseTestModeWrites,
  requireEnabledCompany,
  requireScope,
} from './access.js';
import { registerBodyParsers } from './body.js';
import { replayOrRefuseDuplicate, requireIdempotencyKey } from './idempotency.js';
import { checkBody, checkQuery } from './input-checks.js';
import { checkPathId } from './path-id.js';
import { declareRequestState } from './request-state.js';

export function installPipeline(api: FastifyInstance): void {
  declareRequestState(api);
  api.addHook('onRoute', prepareRoute);
  registerBodyParsers(api); // bodies are kept as raw text; an unreadable one is refused at step 10

  api.addHook('onRequest', refuseBrowsers); // 3. Origin header: 403 browser_use_forbidden
  api.addHook('onRequest', authenticate); // 4. 401 invalid/expired/revoked key (counted per IP)
  api.addHook('onRequest', limit); // 5. per-key and per-company limits: 429
  api.addHook('onRequest', requireEnabledCompany); // 6. 403 partner_api_disabled
  api.addHook('onRequest', refuseTestModeWrites); // 7. 403 test_mode_read_only
  api.addHook('onRequest', requireScope); // 8. 403 insufficient_scope
  api.addHook('onRequest', requireIdempotencyKey); // 9. 400 idempotency_key_required / _invalid
  api.addHook('preValidation', replayOrRefuseDuplicate); // 9. replay, or 409 reuse / in flight
  api.addHook('preValidation', checkPathId); // 10. path id: 404 resource_not_found
  api.addHook('preHandler', checkQuery); // 10. query: 422 invalid_query_parameter
  api.addHook('preHandler', checkBody); // 10. body: 422 validation_failed
}

/**
 * Runs as each route is registered: a route without a scope is refused at start-up, and schema
 * failures are attached to the request so that steps 10 (query, body) report them in order.
 */
function prepareRoute(route: RouteOptions): void {
  if (!route.config?.scope) throw new Error(`route ${route.method} ${route.url} declares no scope`);
  route.attachValidation = true;
}
