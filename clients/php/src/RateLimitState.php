<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** What the client knows of one limit: `$api->rateLimits()`. */
final class RateLimitState
{
    public function __construct(
        /** The limit's name in the headers, e.g. "key-writes-minute". */
        public readonly string $name,
        public readonly ?int $quota,
        public readonly ?int $windowSeconds,
        /** Requests this client may still send in the current window. */
        public readonly ?int $remaining,
        /** Seconds until the window resets, when known. */
        public readonly ?float $resetIn,
        /** @var list<string> "read" and/or "write" */
        public readonly array $appliesTo,
    ) {
    }
}
