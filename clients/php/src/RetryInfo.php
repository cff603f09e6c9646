<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** Passed to `onRetry` before each wait. */
final class RetryInfo
{
    public function __construct(
        public readonly string $method,
        public readonly string $path,
        /** The attempt that failed (1 for the first request). */
        public readonly int $attempt,
        /** Seconds the client waits before the next attempt. */
        public readonly float $delay,
        /** A PartnerApiException (429, 409 in flight, 5xx) or a PartnerApiNetworkException. */
        public readonly \Throwable $error,
        /** The Idempotency-Key the next attempt resends (writes only). */
        public readonly ?string $idempotencyKey,
    ) {
    }
}
