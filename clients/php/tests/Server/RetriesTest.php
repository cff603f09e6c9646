<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Server;

use Invoicing\PartnerApi\PartnerApi;
use Invoicing\PartnerApi\PartnerApiException;
use Invoicing\PartnerApi\PartnerApiNetworkException;
use Invoicing\PartnerApi\RetryInfo;
use PHPUnit\Framework\TestCase;

/** Retries through the recording proxy: a lost answer, gateway failures, timeouts, refused connections. */
final class RetriesTest extends TestCase
{
    private const BASE = 0.05;

    /** @var array{company_id: int, key: string} */
    private static array $tenant;
    /** @var list<RetryInfo> */
    private array $retries = [];

    public static function setUpBeforeClass(): void
    {
        self::$tenant = Harness::tenant('Rede Instável PHP, Lda');
    }

    protected function setUp(): void
    {
        Harness::reset('main');
        $this->retries = [];
    }

    /** @param array<string, mixed> $options */
    private function client(array $options = [], ?string $baseUrl = null): PartnerApi
    {
        return Harness::client(self::$tenant['key'], $baseUrl ?? Harness::proxyUrl(), $options + [
            'onRetry' => function (RetryInfo $info): void {
                $this->retries[] = $info;
            },
        ]);
    }

    /** Each wait between half of and the whole base x 1, 2, 4, 8 (jitter). @param list<int> $multiples */
    private function assertBackoff(array $multiples): void
    {
        self::assertSame(range(1, count($multiples)), array_map(fn (RetryInfo $r): int => $r->attempt, $this->retries));
        foreach ($multiples as $i => $multiple) {
            self::assertGreaterThanOrEqual(self::BASE * $multiple / 2, $this->retries[$i]->delay);
            self::assertLessThanOrEqual(self::BASE * $multiple, $this->retries[$i]->delay);
        }
    }

    public function testAPostWhoseAnswerIsLostIsResentWithTheSameBytesAndKeyAndCreatesOneRecord(): void
    {
        Harness::plan('main', [['action' => 'lose-response', 'method' => 'POST', 'times' => 1]]);
        $api = $this->client();
        $created = $api->customers->create(['name' => 'Resposta Perdida PHP', 'email' => 'perdida.php@exemplo.co.mz']);
        $posts = Harness::requests('main');
        self::assertSame([['lose-response', 201], ['forward', 201]], array_map(fn (array $p): array => [$p['action'], $p['upstream_status']], $posts));
        self::assertSame($posts[0]['body'], $posts[1]['body']);
        self::assertSame($posts[0]['headers']['idempotency-key'], $posts[1]['headers']['idempotency-key']);
        self::assertTrue($api->lastResponse()->replayed);
        self::assertSame(2, $api->lastResponse()->attempts);
        self::assertInstanceOf(PartnerApiNetworkException::class, $this->retries[0]->error);
        self::assertSame($posts[0]['headers']['idempotency-key'], $this->retries[0]->idempotencyKey);
        $this->assertBackoff([1]);
        self::assertSame([$created['id']], array_column($api->customers->list(['search' => 'Resposta Perdida PHP'])['data'], 'id'));
    }

    public function testAnInvoiceWhoseAnswerIsLostTwiceIsCreatedOnce(): void
    {
        $api = $this->client();
        $customer = $api->customers->create(['name' => 'Cliente Uma Vez PHP']);
        $product = $api->products->create(['name' => 'Serviço Uma Vez PHP', 'type' => 'SERVICES', 'inventory' => 'NON_INVENTORY', 'price' => '10.00']);
        Harness::reset('main');
        Harness::plan('main', [['action' => 'lose-response', 'method' => 'POST', 'times' => 2]]);
        $invoice = $api->invoices->create(['customer_id' => $customer['id'], 'invoice_date' => '2026-03-01', 'items' => [['product_id' => $product['id'], 'quantity' => 2, 'price' => '2500.55']]]);
        self::assertSame('5001.10', $invoice['grand_total']);
        $posts = Harness::requests('main');
        self::assertCount(3, $posts);
        self::assertCount(1, array_unique(array_column($posts, 'body')));
        self::assertCount(1, array_unique(array_map(fn (array $p): string => $p['headers']['idempotency-key'], $posts)));
        $this->assertBackoff([1, 2]);
        self::assertSame(1, $api->invoices->list(['customer_id' => $customer['id']])['pagination']['total']);
    }

    public function test5xxBacksOffWithJitterAndWithMaxRetries4TheFifthFailureIsThrown(): void
    {
        Harness::plan('main', [['action' => 'answer', 'status' => 502, 'times' => 5]]);
        try {
            $this->client(['maxRetries' => 4])->ping();
            self::fail('the call succeeded');
        } catch (PartnerApiException $error) {
            self::assertSame([502, null, 5], [$error->status, $error->errorCode, $error->attempts]);
        }
        $this->assertBackoff([1, 2, 4, 8]);
    }

    public function testRetryAfterOnA503IsWaitedInsteadOfTheBackoff(): void
    {
        Harness::plan('main', [['action' => 'answer', 'status' => 503, 'headers' => ['retry-after' => '1'], 'times' => 1]]);
        self::assertSame(self::$tenant['company_id'], $this->client()->ping()['tenant_id']);
        self::assertSame([1.0], array_map(fn (RetryInfo $r): float => $r->delay, $this->retries));
    }

    public function testATimeoutIsANetworkError(): void
    {
        Harness::plan('main', [['action' => 'hang', 'times' => 2]]);
        try {
            $this->client(['timeout' => 0.3, 'maxRetries' => 1])->ping();
            self::fail('the call succeeded');
        } catch (PartnerApiNetworkException $error) {
            self::assertTrue($error->timedOut);
            self::assertSame(2, $error->attempts);
        }
    }

    public function testARefusedConnectionIsANetworkErrorAfter5AttemptsWithMaxRetries4(): void
    {
        try {
            $this->client(['maxRetries' => 4], 'http://127.0.0.1:9/api/v1/partner')->ping();
            self::fail('the call succeeded');
        } catch (PartnerApiNetworkException $error) {
            self::assertSame([false, 5], [$error->timedOut, $error->attempts]);
        }
        $this->assertBackoff([1, 2, 4, 8]);
    }
}
