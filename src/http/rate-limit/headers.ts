// The answer to a request the limits counted: the contract's X-RateLimit-Limit / -Remaining and
// the IETF draft's RateLimit-Policy and RateLimit headers, and the 429 with its Retry-After.
import { ApiError } from '../../errors.js';
import { metrics } from '../../metrics/registry.js';
import { type CheckOutcome, LIMITS, type LimitName } from './limits.js';

/** Seconds until the window of this counter opens again, whole and at least 1. */
export function secondsLeft(outcome: CheckOutcome): number {
  return Math.max(1, Math.ceil(outcome.res.msBeforeNext / 1000));
}

/** One item of `RateLimit-Policy`: the limit, its quota and its window in seconds. */
export function policyItem(limit: LimitName, points: number): string {
  return `"${limit}";q=${points};w=${LIMITS[limit].seconds}`;
}

/** `RateLimit`: what is left of one limit and the seconds until its window resets. */
export function rateLimitHeader(shown: CheckOutcome): string {
  return `"${shown.limit}";r=${shown.res.remainingPoints};t=${secondsLeft(shown)}`;
}

/** `RateLimit-Policy` of the limits that counted a request. */
export function policyOf(outcomes: CheckOutcome[]): string {
  return outcomes.map((outcome) => policyItem(outcome.limit, outcome.points)).join(', ');
}

/**
 * The headers of a request a key made, and of every 429: the contract's `X-RateLimit-Limit` (the size of the shown
 * limit, `quota`) and `X-RateLimit-Remaining`, and the IETF draft's (draft-ietf-httpapi-ratelimit-
 * headers, structured fields): `RateLimit-Policy` names every limit that counted the request with
 * its quota and window in seconds, `"key-minute";q=60;w=60, "key-day";q=5000;w=86400, ...`;
 * `RateLimit` says what is left of the shown one and when its window resets,
 * `"key-minute";r=59;t=60`. An anonymous request that passes gets the last two only.
 */
export function keyHeaders(shown: CheckOutcome, quota: string, policy: string): Record<string, string> {
  return {
    'X-RateLimit-Limit': quota,
    'X-RateLimit-Remaining': String(shown.res.remainingPoints),
    'RateLimit-Policy': policy,
    RateLimit: rateLimitHeader(shown),
  };
}

/**
 * The 429 for a request some limit refused. `Retry-After` is the time until the same request
 * would pass: until every counter that is full (it refused this one, or this one used its last
 * point) has reset, as the retry counts in all of them again. The X-RateLimit headers and
 * `RateLimit` are those of the refusing limit that resets last.
 */
export function refusal(outcomes: CheckOutcome[]): ApiError {
  for (const outcome of outcomes) if (outcome.refused) metrics.rateLimitRefused(outcome.limit);
  const full = outcomes.filter((outcome) => outcome.res.consumedPoints >= outcome.points);
  const retryAfter = Math.max(...full.map(secondsLeft));
  const refused = outcomes
    .filter((outcome) => outcome.refused)
    .reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
  return new ApiError('rate_limit_exceeded', {
    headers: {
      'Retry-After': String(retryAfter),
      ...keyHeaders(refused, String(refused.points), policyOf(outcomes)),
    },
  });
}

/** The limit with the fewest requests left (on a tie, the smaller one). */
export function tightest(outcomes: CheckOutcome[]): CheckOutcome {
  return outcomes.reduce((a, b) => {
    if (b.res.remainingPoints !== a.res.remainingPoints) {
      return b.res.remainingPoints < a.res.remainingPoints ? b : a;
    }
    return b.points < a.points ? b : a;
  });
}
