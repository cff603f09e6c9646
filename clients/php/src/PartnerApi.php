<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * The Partner API v1 of the invoicing service, for one key.
 *
 * `apiKey`: svc_sk_live_... (reads and writes) or svc_sk_test_... (reads only). `baseUrl`: the API's
 * address, ending in /api/v1/partner.
 */
final class PartnerApi
{
    public const VERSION = '1.0.0';

    public readonly Customers $customers;
    public readonly Products $products;
    public readonly Invoices $invoices;
    public readonly Payments $payments;
    private readonly Transport $transport;
    private readonly ?Pacer $pacer;

    /**
     * @param int $maxRetries retries after the first attempt at most; $retryBudget usually ends them first
     * @param float $timeout longest wait for one attempt's whole answer, in seconds
     * @param float $retryBaseDelay first backoff wait (seconds); then 2x, 4x, 8x... up to 10 s, never less than Retry-After
     * @param float $maxRetryWait a Retry-After (or a pacing wait) longer than this ends the call instead
     * @param bool $pacing wait before a request that a rate limit announced by the API would refuse
     * @param (callable(RetryInfo): void)|null $onRetry called before each retry's wait
     * @param (callable(PaceInfo): void)|null $onPace called before each pacing wait
     * @param float $retryBudget seconds a call may wait between its attempts in total (60: a database failover is outlasted)
     * @param (callable(DeprecationInfo): void)|null $onDeprecation called once per call site when an answer
     *        says the call uses something deprecated; default: an E_USER_DEPRECATED (trigger_error)
     * @param (callable(): (array<string, mixed>|null))|null $traceContext asked once per call: the trace
     *        context of your current span (['traceparent' => ..., 'tracestate' => ...], e.g. the carrier
     *        OpenTelemetry's TraceContextPropagator::inject fills), sent as the W3C headers so that the
     *        API's spans join your trace; a malformed value is not sent (and never throws)
     */
    public function __construct(
        string $apiKey,
        string $baseUrl,
        int $maxRetries = Transport::DEFAULT_MAX_RETRIES,
        float $timeout = 30.0,
        float $retryBaseDelay = 1.0,
        float $maxRetryWait = 60.0,
        bool $pacing = true,
        ?callable $onRetry = null,
        ?callable $onPace = null,
        float $retryBudget = Transport::DEFAULT_RETRY_BUDGET,
        ?callable $onDeprecation = null,
        ?callable $traceContext = null,
    ) {
        if ($apiKey === '') {
            throw new \InvalidArgumentException('apiKey is required');
        }
        if (preg_match('#^https?://#', $baseUrl) !== 1) {
            throw new \InvalidArgumentException('baseUrl must be an http(s) address ending in /api/v1/partner');
        }
        foreach (['maxRetries' => $maxRetries, 'timeout' => $timeout, 'retryBaseDelay' => $retryBaseDelay, 'maxRetryWait' => $maxRetryWait, 'retryBudget' => $retryBudget] as $name => $value) {
            if ($value < 0) {
                throw new \InvalidArgumentException("{$name} must be >= 0");
            }
        }
        $this->pacer = $pacing ? new Pacer($maxRetryWait, $onPace) : null;
        $this->transport = new Transport(
            $apiKey,
            $baseUrl,
            $maxRetries,
            $timeout,
            $retryBaseDelay,
            $maxRetryWait,
            'invoicing-partner-api-php/' . self::VERSION . ' PHP/' . PHP_VERSION,
            $onRetry,
            $this->pacer,
            $retryBudget,
            deprecations: new Deprecations($onDeprecation),
            traceContext: $traceContext,
        );
        $this->customers = new Customers($this->transport);
        $this->products = new Products($this->transport);
        $this->invoices = new Invoices($this->transport);
        $this->payments = new Payments($this->transport);
    }

    /**
     * One write of a body already encoded, with its key, through this client's transport (its
     * retries, pacing and deprecation report): the offline queue's way in.
     *
     * @internal
     * @return array<string, mixed> the decoded answer
     */
    public function send(string $method, string $path, string $body, string $idempotencyKey): array
    {
        return $this->transport->call($method, $path, [], $body, $idempotencyKey);
    }

    /**
     * Seconds until `$writes` more writes fit in every write limit this client has learnt (0 for
     * none; null while no write limit is known): the offline queue's estimate.
     *
     * @internal
     */
    public function writesFitIn(int $writes): ?float
    {
        $longest = $writes === 0 ? 0.0 : null;
        foreach ($writes === 0 ? [] : $this->rateLimits() as $limit) {
            if (in_array('write', $limit->appliesTo, true) && $limit->quota && $limit->windowSeconds) {
                $beyond = $writes - max(0, $limit->remaining ?? $limit->quota);
                $wait = $beyond <= 0 ? 0.0 : ($limit->resetIn ?? 0.0) + (intdiv($beyond + $limit->quota - 1, $limit->quota) - 1) * $limit->windowSeconds;
                $longest = max($longest ?? 0.0, $wait);
            }
        }
        return $longest;
    }

    /**
     * The key's company, mode and scopes: a cheap check that the key works.
     *
     * @return array<string, mixed>
     */
    public function ping(): array
    {
        return $this->transport->call('GET', '/ping')['data'];
    }

    /**
     * The response details (status, request id, replay, rate-limit headers, attempts) of the call that
     * answered last. PHP makes one call at a time, so right after a call this is that call's; while
     * listAll() is iterated, it is the last page's.
     */
    public function lastResponse(): ?Response
    {
        return $this->transport->lastResponse();
    }

    /**
     * The rate limits this client has learnt from the API's RateLimit headers, and what is left of each.
     *
     * @return list<RateLimitState>
     */
    public function rateLimits(): array
    {
        return $this->pacer?->snapshot() ?? [];
    }
}
