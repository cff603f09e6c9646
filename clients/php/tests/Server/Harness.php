<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Server;

use Invoicing\PartnerApi\PartnerApi;

/**
 * The test harness of the repository (test/helpers/client-harness.ts), over HTTP.
 *
 * `npm run test:clients` starts it (a real server on PostgreSQL or PGlite, recording proxies, a
 * webhook receiver, a server with low limits whose clock can be moved on) and runs these tests with
 * its addresses in the environment. Without them the tests fail: they are never skipped.
 */
final class Harness
{
    public static function env(string $name): string
    {
        $value = getenv($name);
        if ($value === false || $value === '') {
            throw new \RuntimeException("{$name} is not set: run these tests through `npm run test:clients`");
        }
        return $value;
    }

    public static function apiUrl(): string
    {
        return self::env('PARTNER_API_URL');
    }

    public static function proxyUrl(): string
    {
        return self::env('PARTNER_PROXY_URL');
    }

    public static function limitedProxyUrl(): string
    {
        return self::env('PARTNER_LIMITED_PROXY_URL');
    }

    /** @param array<string, mixed>|null $body */
    public static function control(string $method, string $path, ?array $body = null): mixed
    {
        $curl = curl_init(self::env('PARTNER_HARNESS_URL') . $path);
        curl_setopt_array($curl, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => 120,
            CURLOPT_PROXY => '',
            CURLOPT_HTTPHEADER => ['content-type: application/json'],
        ]);
        if ($body !== null) {
            curl_setopt($curl, CURLOPT_POSTFIELDS, json_encode($body, JSON_THROW_ON_ERROR));
        }
        $text = curl_exec($curl);
        $status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        if ($text === false || $status !== 200) {
            throw new \RuntimeException("harness {$method} {$path}: {$status} " . ($text === false ? curl_error($curl) : $text));
        }
        return json_decode((string) $text, true, 512, JSON_THROW_ON_ERROR);
    }

    /** @return array{company_id: int, key: string} */
    public static function tenant(string $name, string $target = 'main', string $mode = 'live'): array
    {
        return self::control('POST', '/tenants', ['name' => $name, 'target' => $target, 'mode' => $mode]);
    }

    /** @return array<string, mixed> bin/invoicing ARGS --json on the server's database */
    public static function cli(string ...$args): array
    {
        return self::control('POST', '/cli', ['args' => $args]);
    }

    /** @param list<array<string, mixed>> $rules */
    public static function plan(string $proxy, array $rules): void
    {
        self::control('POST', "/proxy/{$proxy}/plan", ['rules' => $rules]);
    }

    /** @return list<array<string, mixed>> */
    public static function requests(string $proxy): array
    {
        return self::control('GET', "/proxy/{$proxy}/requests");
    }

    public static function reset(string $proxy): void
    {
        self::control('POST', "/proxy/{$proxy}/reset");
    }

    /** Moves the limited server's clock on. */
    public static function advanceClock(float $seconds): void
    {
        self::control('POST', '/clock', ['advance_ms' => (int) round($seconds * 1000)]);
    }

    /**
     * Moves the limited server's clock so that the minute window a request answered at `$opened`
     * (microtime(true)) opened ends `$secondsLeft` seconds from now: whatever time the test has
     * taken so far, the window is neither over nor far from over.
     */
    public static function nearWindowEnd(float $opened, float $secondsLeft = 3.0): void
    {
        self::advanceClock(60.0 - $secondsLeft - (microtime(true) - $opened));
    }

    /** @return list<array{headers: array<string, string>, body: string}> */
    public static function deliveries(int $companyId): array
    {
        return self::control('GET', "/webhooks/deliveries?company_id={$companyId}");
    }

    public static function waitFor(callable $predicate, float $timeout = 20.0, string $what = 'the condition'): mixed
    {
        $deadline = microtime(true) + $timeout;
        while (true) {
            $value = $predicate();
            if ($value) {
                return $value;
            }
            if (microtime(true) > $deadline) {
                throw new \RuntimeException("timed out waiting for {$what}");
            }
            usleep(50_000);
        }
    }

    /** @param array<string, mixed> $options */
    public static function client(string $key, ?string $baseUrl = null, array $options = []): PartnerApi
    {
        return new PartnerApi(...['apiKey' => $key, 'baseUrl' => $baseUrl ?? self::apiUrl()] + $options + ['retryBaseDelay' => 0.05]);
    }
}
