// What a failed call throws: PartnerApiError when the API answered (with its error envelope, or a
// bare HTTP failure such as a gateway's 502), PartnerApiNetworkError when no answer came at all.
import type { ErrorCode } from './types.js';

/** The rate-limit headers of a response, when it carried them. */
export interface RateLimitInfo {
  /** `X-RateLimit-Limit`: requests allowed in the tightest window. */
  limit: number | null;
  /** `X-RateLimit-Remaining`: requests left in it. */
  remaining: number | null;
  /** `Retry-After` in seconds (on 429 and 409 idempotency_request_in_flight). */
  retryAfterSeconds: number | null;
}

export const ERROR_CODES: readonly ErrorCode[] = [
  'invalid_api_key',
  'api_key_expired',
  'api_key_revoked',
  'partner_api_disabled',
  'browser_use_forbidden',
  'test_mode_read_only',
  'insufficient_scope',
  'resource_not_found',
  'invalid_query_parameter',
  'validation_failed',
  'idempotency_key_required',
  'idempotency_key_invalid',
  'idempotency_request_in_flight',
  'idempotency_key_reuse',
  'rate_limit_exceeded',
];

export interface PartnerApiErrorInit {
  status: number;
  code: ErrorCode | null;
  message: string;
  hint: string | null;
  docUrl: string | null;
  requestId: string | null;
  errors?: Record<string, string[]>;
  rateLimit: RateLimitInfo | null;
  attempts: number;
}

/** The API answered with a failure. Branch on `code`; `message` and `hint` are for people. */
export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  /** HTTP status. */
  readonly status: number;
  /** One of the contract's 15 codes; null when the answer was not the API's error envelope (e.g. a proxy's 502). */
  readonly code: ErrorCode | null;
  readonly hint: string | null;
  readonly docUrl: string | null;
  /** `X-Request-Id` of the failed answer: quote it to support. */
  readonly requestId: string | null;
  /** For `validation_failed`: dotted field path (`items.0.price`) to its messages. */
  readonly errors: Record<string, string[]> | undefined;
  readonly rateLimit: RateLimitInfo | null;
  /** Requests made for this call, retries included. */
  readonly attempts: number;

  constructor(init: PartnerApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.hint = init.hint;
    this.docUrl = init.docUrl;
    this.requestId = init.requestId;
    this.errors = init.errors;
    this.rateLimit = init.rateLimit;
    this.attempts = init.attempts;
  }
}

/** No answer arrived: connection refused or dropped, DNS failure, or the timeout passed. */
export class PartnerApiNetworkError extends Error {
  override readonly name = 'PartnerApiNetworkError';
  /** True when the call's `timeoutMs` passed before the answer. */
  readonly timedOut: boolean;
  readonly attempts: number;

  constructor(message: string, options: { cause: unknown; timedOut: boolean; attempts: number }) {
    super(message, { cause: options.cause });
    this.timedOut = options.timedOut;
    this.attempts = options.attempts;
  }
}
