// What the pipeline learns about a request and hands to the routes: the caller (the API key and
// its company), the company context every repository takes (with the key as its actor), the path
// id, the raw body.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import type { ListMemory } from '../db/list-memory.js';
import type { FieldErrors } from '../errors.js';
import type { KeyMode } from '../keys/api-keys.js';
import type { KeyCache } from '../keys/key-cache.js';
import type { Scope } from '../keys/scopes.js';
import type { RateLimiter } from './rate-limit.js';

/** Who is calling: the API key and its company, set by the authentication step. */
export interface Caller {
  apiKeyId: number;
  companyId: number;
  companyName: string;
  partnerApiEnabled: boolean;
  mode: KeyMode;
  scopes: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    config: Config;
    rateLimiter: RateLimiter;
    keyCache: KeyCache;
    listMemory: ListMemory;
  }
  interface FastifyRequest {
    /** Null only before authentication has run. */
    caller: Caller | null;
    /** The caller's company, database, time zone and actor (the key); null only before authentication. */
    companyContext: CompanyContext | null;
    /** The path `{id}` once the path-id step has checked it. */
    resourceId: number | null;
    /** The exact bytes of a JSON body as received (idempotency compares them). */
    rawBody: string | undefined;
    /** Why the body could not be read as JSON, reported as `validation_failed` at step 10. */
    bodyProblem: string | undefined;
    /** Set on POST/PUT once the header is checked: the key and the fingerprint of the request. */
    idempotency: { key: string; requestHash: string } | null;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route; every route must declare one. */
    scope?: Scope;
    /**
     * For routes with a path `{id}` and a body (PUT): whether that id is one the company may
     * write. Checked before the body, so an unknown id is a 404 whatever the body says.
     */
    writableId?: (context: CompanyContext, id: number) => Promise<boolean>;
    /**
     * The route's own rules on a body (references to other rows, uniqueness, decimals), run
     * also when the body's schema fails so that one 422 names every problem. Takes any JSON.
     */
    bodyRules?: (context: CompanyContext, body: unknown, id: number | null) => Promise<FieldErrors>;
  }
}

export function declareRequestState(app: FastifyInstance): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('companyContext', null);
  app.decorateRequest('resourceId', null);
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('bodyProblem', undefined);
  app.decorateRequest('idempotency', null);
}

export function isWriteMethod(method: string): boolean {
  return method === 'POST' || method === 'PUT';
}

/** The authenticated caller (authentication ran in onRequest). */
export function callerOf(request: { caller: Caller | null }): Caller {
  if (!request.caller) throw new Error('route reached without authentication');
  return request.caller;
}

/** The company context of an authenticated request. */
export function contextOf(request: { companyContext: CompanyContext | null }): CompanyContext {
  if (!request.companyContext) throw new Error('route reached without authentication');
  return request.companyContext;
}

/** The path id of a route with `{id}`, checked by the path-id step. */
export function resourceIdOf(request: { resourceId: number | null }): number {
  if (request.resourceId === null) throw new Error('route reached without its path id checked');
  return request.resourceId;
}
