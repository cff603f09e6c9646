<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** No answer arrived: connection refused or dropped, DNS failure, or the timeout passed. */
final class PartnerApiNetworkException extends \RuntimeException
{
    public function __construct(
        string $message,
        /** True when the timeout passed before the answer. */
        public readonly bool $timedOut,
        public readonly int $attempts,
    ) {
        parent::__construct($message);
    }
}
