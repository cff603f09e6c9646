import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { FieldErrors } from '../errors.js';
import type { KeyMode, Scope } from '../operations/api-keys.js';
import type { RateLimiter } from './rate-limit.js';

/** Who is calling: set by the authentication step for every request that reaches a handler. */
export interface AuthContext {
  apiKeyId: number;
  companyId: number;
  companyName: string;
  mode: KeyMode;
  scopes: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    config: Config;
    rateLimiter: RateLimiter;
  }
  interface FastifyRequest {
    /** Null only before authentication has run. */
    auth: AuthContext | null;
    /** The exact bytes of a JSON body as received (idempotency compares them). */
    rawBody: string | undefined;
    /** Why the body could not be read as JSON, reported as `validation_failed` after idempotency. */
    bodyProblem: string | undefined;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route. */
    scope?: Scope;
    /**
     * For routes with a path `{id}` and a body (PUT): whether that id is one the company may
     * write. Checked before the body, so an unknown id is a 404 whatever the body says.
     */
    writableId?: (db: Database, companyId: number, id: number) => Promise<boolean>;
    /**
     * The route's own rules on a body (references to other rows, uniqueness, decimals), run
     * also when the body's schema fails so that one 422 names every problem. Takes any JSON.
     */
    bodyRules?: (db: Database, companyId: number, body: unknown, id: number | null) => Promise<FieldErrors>;
  }
}

/** The authenticated caller of a handler (authentication ran in onRequest). */
export function authOf(request: { auth: AuthContext | null }): AuthContext {
  if (!request.auth) throw new Error('route reached without authentication');
  return request.auth;
}
