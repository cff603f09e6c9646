<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * The API answered with a failure. Branch on `errorCode`; the message and `hint` are for people.
 * `getMessage()` (what an uncaught exception shows) is the API's message followed by its hint, so
 * that it says what to do; `apiMessage` is the API's message alone. `getCode()` is the HTTP status.
 */
final class PartnerApiException extends \RuntimeException
{
    /** The contract's 15 error codes, in the order the API documents them. */
    public const ERROR_CODES = [
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

    /** The message of the API's error envelope, without the hint. */
    public readonly string $apiMessage;

    /**
     * @param array<string, list<string>>|null $errors
     */
    public function __construct(
        /** HTTP status. */
        public readonly int $status,
        /** One of ERROR_CODES; null when the answer was not the API's envelope (e.g. a proxy's 502). */
        public readonly ?string $errorCode,
        string $message,
        public readonly ?string $hint = null,
        public readonly ?string $docUrl = null,
        /** X-Request-Id of the failed answer. */
        public readonly ?string $requestId = null,
        /** For validation_failed: dotted field path ("items.0.price") to its messages. */
        public readonly ?array $errors = null,
        public readonly ?RateLimitInfo $rateLimit = null,
        /** Requests made for this call, retries included. */
        public readonly int $attempts = 1,
    ) {
        $this->apiMessage = $message;
        parent::__construct($hint !== null && $hint !== '' ? "{$message} {$hint}" : $message, $status);
    }
}
