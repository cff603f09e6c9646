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

// Keyed by the generated ErrorCode union: a code added to or removed from openapi.json (which the
// server writes from its one error module) fails to compile here until this list follows.
const KNOWN_CODES: Record<ErrorCode, true> = {
  invalid_api_key: true,
  api_key_expired: true,
  api_key_revoked: true,
  partner_api_disabled: true,
  browser_use_forbidden: true,
  test_mode_read_only: true,
  insufficient_scope: true,
  resource_not_found: true,
  invalid_query_parameter: true,
  validation_failed: true,
  idempotency_key_required: true,
  idempotency_key_invalid: true,
  idempotency_request_in_flight: true,
  idempotency_key_reuse: true,
  rate_limit_exceeded: true,
};

/** The contract's 15 error codes, in the order the API documents them. */
export const ERROR_CODES = Object.keys(KNOWN_CODES) as readonly ErrorCode[];

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

/** The API's message followed by its hint: what an uncaught error shows. */
function withHint(message: string, hint: string | null): string {
  return hint ? `${message} ${hint}` : message;
}

/**
 * The API answered with a failure. Branch on `code`; `message` (the API's message followed by its
 * hint, so that an uncaught error says what to do) and `hint` are for people; `apiMessage` is the
 * API's message alone.
 */
export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  /** The `message` of the API's error envelope, without the hint. */
  readonly apiMessage: string;
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
    super(withHint(init.message, init.hint));
    this.apiMessage = init.message;
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
