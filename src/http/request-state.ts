// What the pipeline learns and decides about an API request, on ONE object per request
// (`request.state`, a RequestState made by the pipeline's first step): the caller (the API key and
// its company), the company context every repository takes (with the key as its actor), the path
// id, the raw body, the Idempotency-Key as sent and as accepted, whether the answer is a replay, the
// error code answered, the deprecated items used. Each fact is set where it is decided; the log
// line, the metrics, the request log (src/monitoring/request-hooks.ts, src/request-log/capture.ts)
// and a webhook event's cause (the actor) only read them, never the answer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import type { ErrorCode, FieldErrors } from '../errors.js';
import type { KeyMode } from '../keys/api-keys.js';
import type { KeyCache } from '../keys/key-cache.js';
import type { Scope } from '../keys/scopes.js';
import type { ListMemory } from '../lists/memory.js';
import type { RateLimiter } from './rate-limit/index.js';

/** Who is calling: the API key and its company, set by the authentication step. */
export interface Caller {
  apiKeyId: number;
  companyId: number;
  companyName: string;
  partnerApiEnabled: boolean;
  mode: KeyMode;
  scopes: string[];
}

/** A key and its company, as the request log keeps a request under them. */
export interface KnownKey {
  apiKeyId: number;
  companyId: number;
}

/** The facts of one API request (one small object; every field is there from the start). */
export class RequestState {
  /** The Idempotency-Key header as sent, on any method (the request log keeps it); read here once. */
  readonly sentIdempotencyKey: string | undefined;
  /** Null only before authentication has run. */
  caller: Caller | null = null;
  /** The caller's company, database, time zone and actor (the key); null only before authentication. */
  companyContext: CompanyContext | null = null;
  /** A key that was found and refused (expired, revoked): the request is logged under it still. */
  refusedKey: KnownKey | null = null;
  /** The path `{id}` once the path-id step has checked it. */
  resourceId: number | null = null;
  /** The exact bytes of a JSON body as received (idempotency compares them). */
  rawBody: string | undefined = undefined;
  /** Why the body could not be read as JSON, reported as `validation_failed` at step 10. */
  bodyProblem: string | undefined = undefined;
  /** The Idempotency-Key of a POST or PUT once step 9 accepted it; null on reads and before. */
  idempotencyKey: string | null = null;
  /** The fingerprint of that write (method, path, raw body), once step 9 computed it. */
  requestHash = '';
  /** Answered with the stored answer of an earlier request with the same key. */
  replayed = false;
  /** The contract's error code of the envelope answered, set by the code that sends it. */
  errorCode: ErrorCode | null = null;
  /** The deprecated items the request used (src/http/deprecation.ts); null for almost every one. */
  deprecatedUse: string[] | null = null;

  constructor(request: FastifyRequest) {
    const header = request.headers['idempotency-key'];
    this.sentIdempotencyKey = typeof header === 'string' ? header : undefined;
  }
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
    /**
     * The facts of an API request, from the pipeline's first step on; undefined before it and
     * on what is not an API route (the framework's 404, the OpenAPI document).
     */
    state: RequestState | undefined;
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
  // Undefined, not an object: a decorator's initial value is shared by every request (Fastify's
  // rule); each request gets its own state from the pipeline's first step.
  app.decorateRequest('state', undefined);
}

/** The pipeline's first step: the request's own state, before anything is decided. */
export function beginRequestState(request: FastifyRequest): void {
  request.state = new RequestState(request);
}

/** The state of an API request (the pipeline's first step made it). */
export function stateOf(request: { state: RequestState | undefined }): RequestState {
  if (!request.state) throw new Error('API request without its state');
  return request.state;
}

export function isWriteMethod(method: string): boolean {
  return method === 'POST' || method === 'PUT';
}

/** The authenticated caller (authentication ran in onRequest). */
export function callerOf(request: { state: RequestState | undefined }): Caller {
  const caller = request.state?.caller;
  if (!caller) throw new Error('route reached without authentication');
  return caller;
}

/** The company context of an authenticated request. */
export function contextOf(request: { state: RequestState | undefined }): CompanyContext {
  const context = request.state?.companyContext;
  if (!context) throw new Error('route reached without authentication');
  return context;
}

/** The path id of a route with `{id}`, checked by the path-id step. */
export function resourceIdOf(request: { state: RequestState | undefined }): number {
  const id = request.state?.resourceId ?? null;
  if (id === null) throw new Error('route reached without its path id checked');
  return id;
}
