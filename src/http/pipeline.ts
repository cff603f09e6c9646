// The order of checks on every API request (decisions.md "Order of checks on a request"), one
// step per line. Fastify runs the hooks of a phase in the order they are added here, and the
// phases in this order: onRequest -> body parsing -> preValidation -> schema validation ->
// preHandler -> the route's handler. Steps 1 and 2 are the framework's and app.ts's:
//   1. no such route or method: the framework's generic 404 (nothing below runs);
//   2. every response carries X-Request-Id (a root hook in app.ts, so the 404 carries it too).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { tracedStep } from '../tracing/spans.js';
import {
  authenticate,
  limit,
  refuseBrowsers,
  refuseTestModeWrites,
  requireEnabledCompany,
  requireScope,
} from './access.js';
import { registerBodyParsers } from './body.js';
import { announceDeprecation } from './deprecation.js';
import { replayOrRefuseDuplicate, requireIdempotencyKey } from './idempotency.js';
import { checkBody, checkQuery } from './input-checks.js';
import { checkPathId } from './path-id.js';
import { beginRequestState, declareRequestState } from './request-state.js';

/** One step of the order of checks: throws the contract's error, or returns the reply it answered. */
type Step = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** The steps that cost time get a span each when tracing is on (src/tracing/); off, none is wrapped. */
export interface PipelineOptions {
  traced?: boolean;
}

export function installPipeline(api: FastifyInstance, options: PipelineOptions = {}): void {
  const span = options.traced ? tracedStep : (_name: string, step: Step) => step;
  declareRequestState(api);
  api.addHook('onRoute', prepareRoute);
  registerBodyParsers(api); // bodies are kept as raw text; an unreadable one is refused at step 10

  api.addHook(
    'onRequest',
    runSteps([
      beginRequestState, // the request's one state object: each step below records what it decides
      refuseBrowsers, // 3. Origin header: 403 browser_use_forbidden
      span('authentication', authenticate), // 4. 401 invalid/expired/revoked key (counted per IP)
      span('rate limiting', limit), // 5. per-key and per-company limits: 429
      requireEnabledCompany, // 6. 403 partner_api_disabled
      refuseTestModeWrites, // 7. 403 test_mode_read_only
      requireScope, // 8. 403 insufficient_scope
      requireIdempotencyKey, // 9. 400 idempotency_key_required / _invalid
    ]),
  );
  api.addHook(
    'preValidation',
    runSteps([
      span('idempotency check', replayOrRefuseDuplicate), // 9. replay, or 409 reuse / in flight
      checkPathId, // 10. path id: 404 resource_not_found
    ]),
  );
  api.addHook(
    'preHandler',
    runSteps([
      checkQuery, // 10. query: 422 invalid_query_parameter
      checkBody, // 10. body: 422 validation_failed
      announceDeprecation, // a deprecated route, parameter or field used: Deprecation, Sunset, Link (never refuses)
    ]),
  );
}

/**
 * The steps of one phase as one hook, in order: a step that answers synchronously costs no promise
 * (a hook per step, each a promise, was a tenth of a read's CPU). The first error ends the request
 * with it; a step that returns the reply has answered it (a replay), and no later step runs.
 */
function runSteps(steps: readonly Step[]) {
  return function runPhase(
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    let next = 0;
    const proceed = (): void => {
      let pending: PromiseLike<unknown> | null = null;
      try {
        while (next < steps.length && pending === null) {
          const result = steps[next++]!(request, reply);
          if (result === reply) next = steps.length;
          else if (isPromiseLike(result)) pending = result;
        }
      } catch (error) {
        done(error as Error);
        return;
      }
      if (pending === null) done();
      else
        pending.then(
          (result) => {
            if (result === reply) next = steps.length;
            proceed();
          },
          (error: unknown) => done(error as Error),
        );
    };
    proceed();
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * Runs as each route is registered: a route without a scope is refused at start-up, and schema
 * failures are attached to the request so that steps 10 (query, body) report them in order.
 */
function prepareRoute(route: RouteOptions): void {
  if (!route.config?.scope) throw new Error(`route ${route.method} ${route.url} declares no scope`);
  route.attachValidation = true;
}
