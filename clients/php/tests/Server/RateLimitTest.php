<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Server;

use Invoicing\PartnerApi\PaceInfo;
use Invoicing\PartnerApi\RetryInfo;
use PHPUnit\Framework\TestCase;

/**
 * The limited server: 3 requests and 2 writes a minute per key. Its clock is moved to the end of a
 * minute window so that waits are a second or two, not up to sixty.
 */
final class RateLimitTest extends TestCase
{
    protected function setUp(): void
    {
        Harness::reset('limited');
    }

    /** @return list<int|null> */
    private static function statuses(): array
    {
        return array_column(Harness::requests('limited'), 'upstream_status');
    }

    public function testA429IsWaitedOut(): void
    {
        $tenant = Harness::tenant('Limite Baixo PHP, Lda', 'limited');
        $first = Harness::client($tenant['key'], Harness::limitedProxyUrl());
        $remaining = [];
        for ($i = 0; $i < 3; $i++) {
            $first->ping();
            $remaining[] = $first->lastResponse()->rateLimit->remaining;
        }
        self::assertSame([2, 1, 0], $remaining);
        Harness::advanceClock(58.8);
        // Another process with the same key knows nothing of the spent budget: it meets the 429.
        $retries = [];
        $other = Harness::client($tenant['key'], Harness::limitedProxyUrl(), ['onRetry' => function (RetryInfo $info) use (&$retries): void {
            $retries[] = $info;
        }]);
        self::assertSame($tenant['company_id'], $other->ping()['tenant_id']);
        self::assertCount(1, $retries);
        $error = $retries[0]->error;
        self::assertSame([429, 'rate_limit_exceeded', 2], [$error->status, $error->errorCode, $error->rateLimit->retryAfter]);
        self::assertSame(2.0, $retries[0]->delay);
        self::assertSame([200, 200, 200, 429, 200], self::statuses());
        self::assertSame(2, $other->lastResponse()->attempts);
    }

    public function testPacingWritesNeverMeetA429(): void
    {
        $tenant = Harness::tenant('Ritmo Certo PHP, Lda', 'limited');
        $paces = [];
        $api = Harness::client($tenant['key'], Harness::limitedProxyUrl(), ['onPace' => function (PaceInfo $info) use (&$paces): void {
            $paces[] = $info;
        }]);
        $api->customers->create(['name' => 'Primeiro']);
        Harness::advanceClock(58.5);
        $api->customers->create(['name' => 'Segundo']); // the last write of the window
        $started = microtime(true);
        $api->customers->create(['name' => 'Terceiro']);
        self::assertGreaterThanOrEqual(0.9, microtime(true) - $started);
        self::assertSame(['key-writes-minute'], array_map(fn (PaceInfo $p): string => $p->limit, $paces));
        self::assertLessThanOrEqual(2.0, $paces[0]->delay);
        self::assertSame([201, 201, 201], self::statuses());
        $limits = [];
        foreach ($api->rateLimits() as $state) {
            $limits[$state->name] = $state;
        }
        self::assertSame([2, 60], [$limits['key-writes-minute']->quota, $limits['key-writes-minute']->windowSeconds]);
    }
}
