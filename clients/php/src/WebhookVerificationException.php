<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * The delivery is not one the service made with your secret (or is too old, or malformed).
 * `reason`: "missing_header", "timestamp", "signature" or "payload".
 */
final class WebhookVerificationException extends \RuntimeException
{
    public function __construct(public readonly string $reason, string $message)
    {
        parent::__construct($message);
    }
}
