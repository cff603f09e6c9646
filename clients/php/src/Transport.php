<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * One call to the API, with the retries the contract recommends:
 * - retried: 429, 409 idempotency_request_in_flight, every 5xx, and network errors or timeouts;
 * - the wait is an exponential backoff with jitter: a random wait between half and all of the base
 *   delay, then of 2x, 4x, 8x of it... up to MAX_BACKOFF (so that clients that failed together do
 *   not retry together), and never shorter than the answer's Retry-After;
 * - the retries stop when the next wait would take the call's waits past $retryBudget (60 s by
 *   default: a database failover of 30-40 s is waited out; at least budget - MAX_BACKOFF = 50 s is
 *   always waited), or after $maxRetries;
 * - never retried: any other 4xx, including 409 idempotency_key_reuse;
 * - a write is encoded once and carries one Idempotency-Key: every attempt sends the same bytes with
 *   the same key, so the API creates the record once and replays its answer to a retry;
 * - before every attempt the pacer waits while a rate limit it knows of is exhausted;
 * - the caller's trace context ($traceContext), asked once per call, goes with every attempt as the
 *   W3C traceparent/tracestate headers; a malformed one (or a hook that throws) is not sent.
 *
 * @internal
 */
final class Transport
{
    /** The longest backoff wait in seconds (a Retry-After may ask for more, up to $maxRetryWait). */
    public const MAX_BACKOFF = 10.0;
    /** Defaults of the retries: the budget outlasts a database failover (30-40 s). */
    public const DEFAULT_RETRY_BUDGET = 60.0;
    public const DEFAULT_MAX_RETRIES = 15;
    /** A W3C traceparent: version (not ff), trace id, parent id (neither all zeros), flags; lower case. */
    private const TRACEPARENT = '/^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/D';
    /** A tracestate fit for a header: printable ASCII, at most 512 characters. */
    private const TRACESTATE = '/^[\x20-\x7e]{1,512}$/D';

    /** @var \CurlHandle|null one handle: reads reuse its kept-alive connection, writes never do */
    private ?\CurlHandle $curl = null;
    private ?Response $last = null;

    /**
     * @param (callable(RetryInfo): void)|null $onRetry
     * @param (\Closure(float): void)|null $sleep the wait between attempts (tests record it); default usleep
     * @param (callable(): (array<string, mixed>|null))|null $traceContext the caller's trace context
     */
    public function __construct(
        private readonly string $apiKey,
        private readonly string $baseUrl,
        private readonly int $maxRetries,
        private readonly float $timeout,
        private readonly float $retryBaseDelay,
        private readonly float $maxRetryWait,
        private readonly string $userAgent,
        private readonly mixed $onRetry,
        private readonly ?Pacer $pacer,
        private readonly float $retryBudget = self::DEFAULT_RETRY_BUDGET,
        private readonly ?\Closure $sleep = null,
        private readonly ?Deprecations $deprecations = null,
        private readonly mixed $traceContext = null,
    ) {
    }

    /**
     * The trace headers for the hook's answer: traceparent only if well formed, tracestate only with
     * it and only if fit for a header. Never throws: tracing never breaks a call.
     *
     * @return list<string>
     */
    public static function traceHeaders(mixed $hook): array
    {
        if (!is_callable($hook)) {
            return [];
        }
        try {
            $context = $hook();
        } catch (\Throwable) {
            return [];
        }
        $parent = is_array($context) && is_string($context['traceparent'] ?? null) ? trim($context['traceparent']) : '';
        if (preg_match(self::TRACEPARENT, $parent) !== 1) {
            return [];
        }
        $state = is_string($context['tracestate'] ?? null) ? trim($context['tracestate']) : '';
        return preg_match(self::TRACESTATE, $state) === 1
            ? ['traceparent: ' . $parent, 'tracestate: ' . $state]
            : ['traceparent: ' . $parent];
    }

    /** A fresh Idempotency-Key (and the offline queue's local ids): a UUID v4. */
    public static function newKey(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0f) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }

    public function lastResponse(): ?Response
    {
        return $this->last;
    }

    /**
     * @param array<string, mixed> $query
     * @return array<string, mixed> the decoded body
     */
    public function call(string $method, string $path, array $query = [], ?string $body = null, ?string $idempotencyKey = null): array
    {
        $url = rtrim($this->baseUrl, '/') . $path . self::queryString($query);
        $headers = [
            'Authorization: Bearer ' . $this->apiKey,
            'Accept: application/json',
            'User-Agent: ' . $this->userAgent,
            // No "Expect: 100-continue" round trip before a body.
            'Expect:',
            ...self::traceHeaders($this->traceContext),
        ];
        if ($body !== null) {
            $headers[] = 'Content-Type: application/json';
        }
        if ($idempotencyKey !== null) {
            $headers[] = 'Idempotency-Key: ' . $idempotencyKey;
        }
        $kind = $method === 'GET' ? 'read' : 'write';
        $waited = 0.0;
        for ($attempt = 1; ; $attempt++) {
            $retryAfter = null;
            $this->pacer?->acquire($kind);
            $answer = null;
            try {
                $answer = $this->send($method, $url, $headers, $body, $path, $attempt);
                [$status, $answerHeaders, $text] = $answer;
                $info = self::responseInfo($status, $answerHeaders, $attempt);
                $this->deprecations?->notice($method, $path, $answerHeaders);
                $this->last = $info;
                if ($status >= 200 && $status < 300) {
                    return self::parseSuccess($status, $text, $info);
                }
                $failure = $status >= 300 && $status < 400
                    ? self::redirectError($status, $answerHeaders, $method, $path, $info)
                    : self::apiError($status, $text, $info);
                if (!self::retryable($failure)) {
                    throw $failure;
                }
                $retryAfter = $info->rateLimit?->retryAfter;
            } catch (PartnerApiNetworkException $error) {
                $failure = $error;
            } finally {
                $this->pacer?->release($kind, $answer === null ? null : $answer[1]);
            }
            if ($attempt > $this->maxRetries) {
                throw $failure;
            }
            $delay = max($retryAfter !== null ? (float) $retryAfter : 0.0, $this->backoff($attempt));
            if ($waited + $delay > $this->retryBudget) {
                throw $failure;
            }
            // A Retry-After longer than the client is willing to wait (e.g. the per-day limit) ends the call.
            if ($delay > $this->maxRetryWait) {
                throw $failure;
            }
            if ($this->onRetry !== null) {
                ($this->onRetry)(new RetryInfo($method, $path, $attempt, $delay, $failure, $idempotencyKey));
            }
            if ($this->sleep !== null) {
                ($this->sleep)($delay);
            } else {
                usleep((int) round($delay * 1e6));
            }
            $waited += $delay;
        }
    }

    /** Base, 2x, 4x, 8x... of the base delay up to MAX_BACKOFF, each a random wait between its half and itself. */
    private function backoff(int $attempt): float
    {
        $ceiling = min($this->retryBaseDelay * 2 ** ($attempt - 1), self::MAX_BACKOFF);
        return $ceiling / 2 + $ceiling / 2 * (random_int(0, PHP_INT_MAX - 1) / PHP_INT_MAX);
    }

    /**
     * One attempt: status, headers (lower-case names) and body; no answer is a network exception.
     *
     * @param list<string> $headers
     * @return array{0: int, 1: array<string, string>, 2: string}
     */
    private function send(string $method, string $url, array $headers, ?string $body, string $path, int $attempt): array
    {
        if ($this->curl === null) {
            $this->curl = curl_init();
        } else {
            curl_reset($this->curl);
        }
        $answerHeaders = [];
        $options = [
            CURLOPT_URL => $url,
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            // Asks for every encoding this libcurl decodes (gzip, and brotli when built with it)
            // and decodes the answer: a page of 100 invoices travels as about 8 KB, not 65 KB.
            CURLOPT_ENCODING => '',
            CURLOPT_TIMEOUT_MS => (int) ceil($this->timeout * 1000),
            CURLOPT_CONNECTTIMEOUT_MS => (int) ceil(min($this->timeout, 10.0) * 1000),
            CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$answerHeaders): int {
                if (str_starts_with($line, 'HTTP/')) {
                    $answerHeaders = []; // a new answer (after a 1xx): only the final one counts
                } elseif (str_contains($line, ':')) {
                    [$name, $value] = explode(':', $line, 2);
                    $name = strtolower(trim($name));
                    $value = trim($value);
                    $answerHeaders[$name] = isset($answerHeaders[$name]) ? $answerHeaders[$name] . ', ' . $value : $value;
                }
                return strlen($line);
            },
        ];
        if ($body !== null) {
            $options[CURLOPT_POSTFIELDS] = $body;
            // libcurl resends a request by itself when a kept-alive connection turns out closed; a
            // write goes on a connection of its own, so that every send is one of the counted attempts.
            $options[CURLOPT_FRESH_CONNECT] = true;
            $options[CURLOPT_FORBID_REUSE] = true;
        }
        curl_setopt_array($this->curl, $options);
        $text = curl_exec($this->curl);
        if ($text === false) {
            $errno = curl_errno($this->curl);
            $timedOut = $errno === CURLE_OPERATION_TIMEDOUT;
            $reason = $timedOut ? sprintf('no answer within %s s', $this->timeout) : curl_error($this->curl);
            throw new PartnerApiNetworkException("{$method} {$path}: {$reason}", $timedOut, $attempt);
        }
        return [(int) curl_getinfo($this->curl, CURLINFO_RESPONSE_CODE), $answerHeaders, (string) $text];
    }

    /**
     * The API never redirects; an answer that does (a proxy, a wrong base URL) is not followed
     * (CURLOPT_FOLLOWLOCATION off: the key never leaves for another address), and says where it pointed.
     *
     * @param array<string, string> $headers
     */
    private static function redirectError(int $status, array $headers, string $method, string $path, Response $info): PartnerApiException
    {
        $where = isset($headers['location']) ? " to {$headers['location']}" : '';
        return new PartnerApiException($status, null, "HTTP {$status}: {$method} {$path} was redirected{$where}; the client never follows a redirect (is baseUrl the API's address?)", requestId: $info->requestId, rateLimit: $info->rateLimit, attempts: $info->attempts);
    }

    /** Retried, and for the offline queue not a refusal of the entry: 429, 5xx, 409 in flight. */
    public static function retryable(PartnerApiException $error): bool
    {
        if ($error->status === 429 || $error->status >= 500) {
            return true;
        }
        return $error->status === 409 && $error->errorCode === 'idempotency_request_in_flight';
    }

    /** @param array<string, mixed> $query */
    private static function queryString(array $query): string
    {
        $pairs = [];
        foreach ($query as $name => $value) {
            if ($value === null) {
                continue;
            }
            if (is_bool($value)) {
                $value = $value ? 'true' : 'false';
            } elseif (!is_scalar($value)) {
                throw new \InvalidArgumentException("query parameter {$name}: a string, a number or a boolean");
            }
            $pairs[] = rawurlencode((string) $name) . '=' . rawurlencode((string) $value);
        }
        return $pairs === [] ? '' : '?' . implode('&', $pairs);
    }

    /** @param array<string, string> $headers */
    private static function integer(array $headers, string $name): ?int
    {
        $raw = trim($headers[$name] ?? '');
        return preg_match('/^[0-9]+$/D', $raw) === 1 ? (int) $raw : null;
    }

    /** @param array<string, string> $headers */
    private static function retryAfter(array $headers): ?int
    {
        if (!isset($headers['retry-after'])) {
            return null;
        }
        $seconds = self::integer($headers, 'retry-after');
        if ($seconds !== null) {
            return $seconds;
        }
        $when = strtotime($headers['retry-after']);
        return $when === false ? null : max(0, $when - time());
    }

    /** @param array<string, string> $headers */
    private static function responseInfo(int $status, array $headers, int $attempts): Response
    {
        $limit = self::integer($headers, 'x-ratelimit-limit');
        $remaining = self::integer($headers, 'x-ratelimit-remaining');
        $retryAfter = self::retryAfter($headers);
        $rateLimit = $limit === null && $remaining === null && $retryAfter === null
            ? null
            : new RateLimitInfo($limit, $remaining, $retryAfter);
        return new Response(
            $status,
            $headers['x-request-id'] ?? null,
            ($headers['idempotency-replay'] ?? null) === 'true',
            $rateLimit,
            $attempts,
        );
    }

    private static function decode(string $text): mixed
    {
        return json_decode($text, true, 512, JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
    }

    /** @return array<string, mixed> */
    private static function parseSuccess(int $status, string $text, Response $info): array
    {
        try {
            $body = self::decode($text);
        } catch (\JsonException) {
            $body = null;
        }
        if (!is_array($body)) {
            throw new PartnerApiException($status, null, "HTTP {$status} with a body that is not JSON", requestId: $info->requestId, rateLimit: $info->rateLimit, attempts: $info->attempts);
        }
        return $body;
    }

    private static function apiError(int $status, string $text, Response $info): PartnerApiException
    {
        try {
            $body = self::decode($text);
        } catch (\JsonException) {
            $body = null;
        }
        $error = is_array($body) && is_array($body['error'] ?? null) ? $body['error'] : null;
        $known = $error !== null && is_string($error['code'] ?? null) && is_string($error['message'] ?? null)
            && in_array($error['code'], PartnerApiException::ERROR_CODES, true);
        if (!$known) {
            $message = $error !== null && is_string($error['message'] ?? null) ? $error['message'] : "HTTP {$status}";
            return new PartnerApiException($status, null, $message, requestId: $info->requestId, rateLimit: $info->rateLimit, attempts: $info->attempts);
        }
        return new PartnerApiException(
            $status,
            $error['code'],
            $error['message'],
            hint: is_string($error['hint'] ?? null) ? $error['hint'] : null,
            docUrl: is_string($error['doc_url'] ?? null) ? $error['doc_url'] : null,
            requestId: is_string($error['request_id'] ?? null) ? $error['request_id'] : $info->requestId,
            errors: is_array($error['errors'] ?? null) ? $error['errors'] : null,
            rateLimit: $info->rateLimit,
            attempts: $info->attempts,
        );
    }
}
