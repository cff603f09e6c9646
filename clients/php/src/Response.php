<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** What one call's answer said besides its body: `$api->lastResponse()`. */
final class Response
{
    public function __construct(
        public readonly int $status,
        /** X-Request-Id: quote it to support. */
        public readonly ?string $requestId,
        /** Idempotency-Replay: true: a write answered from the record of an earlier identical request. */
        public readonly bool $replayed,
        public readonly ?RateLimitInfo $rateLimit,
        /** Requests made for this call, retries included. */
        public readonly int $attempts,
    ) {
    }
}
