<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** The contract's rate-limit headers of one answer. */
final class RateLimitInfo
{
    public function __construct(
        /** X-RateLimit-Limit: requests allowed in the tightest window. */
        public readonly ?int $limit,
        /** X-RateLimit-Remaining: requests left in it. */
        public readonly ?int $remaining,
        /** Retry-After in seconds (on 429 and 409 idempotency_request_in_flight). */
        public readonly ?int $retryAfter,
    ) {
    }
}
