<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Unit;

use Invoicing\PartnerApi\DeprecationInfo;
use Invoicing\PartnerApi\Deprecations;
use Invoicing\PartnerApi\PartnerApi;
use PHPUnit\Framework\TestCase;

/** Answers with Deprecation/Sunset headers are told once per call site (the compatibility policy). */
final class DeprecationsTest extends TestCase
{
    private const HEADERS = [
        'deprecation' => '@1780272000',
        'sunset' => 'Fri, 31 Dec 2027 00:00:00 GMT',
        'link' => '<https://docs.example/pt/compatibilidade#x>; rel="deprecation"; hreflang="pt", <https://docs.example/en/compatibility#y>; rel="deprecation"',
    ];

    public function testReadsTheDatesAndTheLink(): void
    {
        $info = Deprecations::read('GET', '/customers?search=x', self::HEADERS);
        self::assertNotNull($info);
        self::assertSame('/customers', $info->path);
        self::assertSame('2026-06-01', $info->deprecatedAt?->format('Y-m-d'));
        self::assertSame('2027-12-31', $info->sunsetAt?->format('Y-m-d'));
        self::assertSame('https://docs.example/pt/compatibilidade#x', $info->link);
        self::assertNull(Deprecations::read('GET', '/customers', ['x-request-id' => 'req_1']));
    }

    public function testCallsOnDeprecationOncePerCallSite(): void
    {
        /** @var list<DeprecationInfo> $told */
        $told = [];
        $deprecations = new Deprecations(static function (DeprecationInfo $info) use (&$told): void {
            $told[] = $info;
        });
        for ($i = 0; $i < 3; $i++) {
            $deprecations->notice('GET', '/customers', self::HEADERS); // one call site
        }
        $deprecations->notice('GET', '/customers', self::HEADERS); // another
        $deprecations->notice('GET', '/ping', ['x-request-id' => 'req_1']); // nothing deprecated
        self::assertCount(2, $told);
        self::assertStringEndsWith('DeprecationsTest.php:' . (__LINE__ - 5), (string) $told[0]->callSite);
        self::assertNotSame($told[0]->callSite, $told[1]->callSite);
    }

    public function testWithoutACallbackTriggersEUserDeprecatedOncePerCallSite(): void
    {
        $messages = [];
        set_error_handler(static function (int $level, string $message) use (&$messages): bool {
            $messages[] = [$level, $message];
            return true;
        });
        try {
            $deprecations = new Deprecations();
            for ($i = 0; $i < 2; $i++) {
                $deprecations->notice('GET', '/customers', self::HEADERS);
            }
        } finally {
            restore_error_handler();
        }
        self::assertCount(1, $messages);
        self::assertSame(E_USER_DEPRECATED, $messages[0][0]);
        self::assertStringContainsString('GET /customers uses something deprecated since 2026-06-01', $messages[0][1]);
        self::assertStringContainsString('2027-12-31', $messages[0][1]);
        self::assertMatchesRegularExpression('/called at .*DeprecationsTest\.php:\d+/', $messages[0][1]);
    }

    public function testThroughTheClientOncePerCallSite(): void
    {
        // A free port, then `php -S` on it with the stand-in (stopped in finally).
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($probe);
        $port = (int) substr((string) strrchr((string) stream_socket_get_name($probe, false), ':'), 1);
        fclose($probe);
        $server = proc_open(
            [PHP_BINARY, '-S', "127.0.0.1:{$port}", __DIR__ . '/fixtures/deprecating-api.php'],
            [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
            $pipes,
        );
        self::assertIsResource($server);
        try {
            for ($i = 0; $i < 100 && @fsockopen('127.0.0.1', $port) === false; $i++) {
                usleep(50_000);
            }
            /** @var list<DeprecationInfo> $told */
            $told = [];
            $api = new PartnerApi(
                'svc_sk_live_x',
                "http://127.0.0.1:{$port}/api/v1/partner",
                maxRetries: 0,
                pacing: false,
                onDeprecation: static function (DeprecationInfo $info) use (&$told): void {
                    $told[] = $info;
                },
            );
            $line = __LINE__ + 2;
            for ($i = 0; $i < 3; $i++) {
                $api->customers->list(['search' => 'x']); // one call site
            }
            $api->customers->list(['search' => 'y']); // another
            $api->customers->list(['type' => 'company']); // nothing deprecated
            self::assertCount(2, $told);
            self::assertSame(['GET', '/customers'], [$told[0]->method, $told[0]->path]);
            self::assertSame('2027-12-31', $told[0]->sunsetAt?->format('Y-m-d'));
            self::assertStringEndsWith('DeprecationsTest.php:' . $line, (string) $told[0]->callSite);
        } finally {
            proc_terminate($server);
            proc_close($server);
        }
    }
}
