<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Unit;

use Invoicing\PartnerApi\PartnerApiNetworkException;
use Invoicing\PartnerApi\Transport;
use PHPUnit\Framework\TestCase;

/**
 * The retry budget: with the defaults, a call whose every attempt fails (here a refused
 * connection, as while the service's database fails over behind a load balancer) retries for at
 * least 45 s of waits whatever the jitter, never past the 60 s budget; the waits are recorded, not
 * slept. Port 9 (discard) is closed on the test machines: every attempt is refused at once.
 */
final class RetryBudgetTest extends TestCase
{
    /** @return array{Transport, \ArrayObject<int, float>} */
    private static function refused(float $budget = Transport::DEFAULT_RETRY_BUDGET): array
    {
        $waits = new \ArrayObject();
        $transport = new Transport(
            'svc_sk_live_x',
            'http://127.0.0.1:9/api/v1/partner',
            Transport::DEFAULT_MAX_RETRIES,
            1.0,
            1.0,
            60.0,
            'test',
            null,
            null,
            $budget,
            function (float $seconds) use ($waits): void {
                $waits[] = $seconds;
            },
        );
        return [$transport, $waits];
    }

    public function testRetriesForAtLeast45SecondsAndAtMostTheBudget(): void
    {
        [$transport, $waits] = self::refused();
        try {
            $transport->call('GET', '/ping');
            self::fail('the call succeeded');
        } catch (PartnerApiNetworkException $error) {
            self::assertSame(count($waits) + 1, $error->attempts);
        }
        $total = array_sum($waits->getArrayCopy());
        self::assertGreaterThanOrEqual(45.0, $total);
        self::assertLessThanOrEqual(Transport::DEFAULT_RETRY_BUDGET, $total);
        foreach ($waits as $i => $wait) {
            $ceiling = min(2 ** $i, Transport::MAX_BACKOFF);
            self::assertGreaterThanOrEqual($ceiling / 2, $wait);
            self::assertLessThanOrEqual($ceiling, $wait);
        }
    }

    public function testTheBudgetIsConfigurable(): void
    {
        [$transport, $waits] = self::refused(5.0);
        try {
            $transport->call('GET', '/ping');
            self::fail('the call succeeded');
        } catch (PartnerApiNetworkException) {
        }
        self::assertLessThanOrEqual(5.0, array_sum($waits->getArrayCopy()));
        self::assertGreaterThanOrEqual(2, count($waits));
    }
}
