<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Unit;

use Invoicing\PartnerApi\PaceInfo;
use Invoicing\PartnerApi\Pacer;
use PHPUnit\Framework\TestCase;

/** Pacing on the RateLimit headers, with answers written by the test and a clock it controls. */
final class PacerTest extends TestCase
{
    private const READ_POLICY = '"key-minute";q=60;w=60, "key-day";q=5000;w=86400, "company-minute";q=120;w=60';
    private const WRITE_POLICY = self::READ_POLICY . ', "key-writes-minute";q=10;w=60';

    private float $now = 1000.0;
    /** @var list<float> */
    private array $slept = [];
    /** @var list<PaceInfo> */
    private array $paces = [];

    private function pacer(float $maxWait = 60.0): Pacer
    {
        return new Pacer(
            $maxWait,
            function (PaceInfo $info): void {
                $this->paces[] = $info;
            },
            fn (): float => $this->now,
            function (float $seconds): void {
                $this->slept[] = $seconds;
                $this->now += $seconds;
            },
        );
    }

    /** @return array<string, string> */
    private static function answer(string $policy, string $tightest): array
    {
        return ['ratelimit-policy' => $policy, 'ratelimit' => $tightest];
    }

    public function testParseList(): void
    {
        self::assertSame(
            [['key-minute', ['q' => 60, 'w' => 60]], ['key-writes-minute', ['q' => 10, 'w' => 60]]],
            Pacer::parseList('"key-minute";q=60;w=60, "key-writes-minute";q=10;w=60'),
        );
        self::assertSame([['token', ['r' => 1]], ['x,y', ['r' => 2]], ['z', []]], Pacer::parseList('token;r=1, "x,y";r=2, ;;, bad name;r=3, "z";r=x'));
        self::assertSame([], Pacer::parseList(null));
    }

    public function testAServerWithoutTheHeadersIsNeverWaitedFor(): void
    {
        $pacer = $this->pacer();
        for ($i = 0; $i < 20; $i++) {
            $pacer->acquire('write');
            $pacer->release('write', []);
        }
        self::assertSame([], $this->slept);
        self::assertSame([], $pacer->snapshot());
    }

    public function testWritesWaitForTheWritesLimitReadsDoNot(): void
    {
        $pacer = $this->pacer();
        $pacer->acquire('write');
        $pacer->release('write', self::answer(self::WRITE_POLICY, '"key-writes-minute";r=0;t=42'));
        $pacer->acquire('read');
        $pacer->release('read', null);
        self::assertSame([], $this->slept);
        $pacer->acquire('write');
        $pacer->release('write', null);
        self::assertSame([42.0], $this->slept);
        self::assertSame('key-writes-minute', $this->paces[0]->limit);
        self::assertSame('write', $this->paces[0]->kind);
    }

    public function testALimitThatCountsReadsCountsWrites(): void
    {
        $pacer = $this->pacer();
        $pacer->acquire('read');
        $pacer->release('read', self::answer(self::READ_POLICY, '"key-minute";r=0;t=5'));
        $pacer->acquire('write');
        self::assertSame([5.0], $this->slept);
    }

    public function testReservationsCountDownAndTheWindowGivesTheQuotaBack(): void
    {
        $pacer = $this->pacer();
        $pacer->acquire('write');
        $pacer->release('write', self::answer(self::WRITE_POLICY, '"key-writes-minute";r=2;t=60'));
        $pacer->acquire('write');
        $pacer->release('write', null);
        $pacer->acquire('write');
        $pacer->release('write', null);
        $states = [];
        foreach ($pacer->snapshot() as $state) {
            $states[$state->name] = $state;
        }
        self::assertSame(0, $states['key-writes-minute']->remaining);
        self::assertSame(10, $states['key-writes-minute']->quota);
        self::assertSame(['write'], $states['key-writes-minute']->appliesTo);
        self::assertSame([], $this->slept);
        // The next write waits for the window's reset; then the quota is back.
        $pacer->acquire('write');
        self::assertSame([60.0], $this->slept);
        $pacer->release('write', null);
        foreach ($pacer->snapshot() as $state) {
            if ($state->name === 'key-writes-minute') {
                self::assertSame(9, $state->remaining);
            }
        }
    }

    public function testAWaitLongerThanMaxWaitIsNotMade(): void
    {
        $pacer = $this->pacer(maxWait: 30.0);
        $pacer->acquire('read');
        $pacer->release('read', self::answer(self::READ_POLICY, '"key-day";r=0;t=40000'));
        $pacer->acquire('read');
        self::assertSame([], $this->slept);
        self::assertSame([], $this->paces);
    }
}
