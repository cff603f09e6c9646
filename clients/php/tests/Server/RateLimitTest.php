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
        $opened = 0.0;
        for ($i = 0; $i < 3; $i++) {
            $first->ping();
            $opened = $opened ?: microtime(true);
            $remaining[] = $first->lastResponse()->rateLimit->remaining;
        }
        self::assertSame([2, 1, 0], $remaining);
        Harness::nearWindowEnd($opened, 2.0);
        // Another process with the same key knows nothing of the spent budget: it meets the 429.
        $retries = [];
        $other = Harness::client($tenant['key'], Harness::limitedProxyUrl(), ['onRetry' => function (RetryInfo $info) use (&$retries): void {
            $retries[] = $info;
        }]);
        self::assertSame($tenant['company_id'], $other->ping()['tenant_id']);
        self::assertCount(1, $retries);
        $error = $retries[0]->error;
        self::assertSame([429, 'rate_limit_exceeded'], [$error->status, $error->errorCode]);
        // The window ends about 2 s after the jump, less the time the 429 took.
        self::assertContains($error->rateLimit->retryAfter, [1, 2]);
        self::assertSame((float) $error->rateLimit->retryAfter, $retries[0]->delay);
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
        Harness::nearWindowEnd(microtime(true));
        $api->customers->create(['name' => 'Segundo']); // the last write of the window
        $started = microtime(true);
        $api->customers->create(['name' => 'Terceiro']);
        self::assertSame(['key-writes-minute'], array_map(fn (PaceInfo $p): string => $p->limit, $paces));
        self::assertGreaterThan(0, $paces[0]->delay);
        self::assertLessThanOrEqual(3.0, $paces[0]->delay);
        self::assertGreaterThanOrEqual($paces[0]->delay - 0.1, microtime(true) - $started);
        self::assertSame([201, 201, 201], self::statuses());
        $limits = [];
        foreach ($api->rateLimits() as $state) {
            $limits[$state->name] = $state;
        }
        self::assertSame([2, 60], [$limits['key-writes-minute']->quota, $limits['key-writes-minute']->windowSeconds]);
    }
}
