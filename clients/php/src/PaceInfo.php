<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** Passed to `onPace` before each wait for a rate limit. */
final class PaceInfo
{
    public function __construct(
        /** "read" (GET) or "write" (POST, PUT). */
        public readonly string $kind,
        /** The limit waited for, e.g. "key-writes-minute". */
        public readonly string $limit,
        /** Seconds. */
        public readonly float $delay,
    ) {
    }
}
