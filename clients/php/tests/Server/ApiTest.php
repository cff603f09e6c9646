<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Server;

use Invoicing\PartnerApi\PartnerApi;
use Invoicing\PartnerApi\PartnerApiException;
use PHPUnit\Framework\TestCase;

/**
 * The PHP client against the real server (PostgreSQL or PGlite, as the run says): every method,
 * auto-paging, exact money, and the errors that surface at once.
 */
final class ApiTest extends TestCase
{
    private const UUID_V4 = '/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/';

    /** @var array{company_id: int, key: string} */
    private static array $tenant;
    private static PartnerApi $api;

    public static function setUpBeforeClass(): void
    {
        self::$tenant = Harness::tenant('Cliente PHP, Lda');
        self::$api = Harness::client(self::$tenant['key'], Harness::proxyUrl());
    }

    protected function setUp(): void
    {
        Harness::reset('main');
    }

    private static function failure(callable $call): PartnerApiException
    {
        try {
            $call();
        } catch (PartnerApiException $error) {
            return $error;
        }
        self::fail('the call succeeded');
    }

    public function testPing(): void
    {
        $ping = self::$api->ping();
        self::assertSame(self::$tenant['company_id'], $ping['tenant_id']);
        self::assertSame('Cliente PHP, Lda', $ping['tenant_name']);
        self::assertSame('live', $ping['mode']);
        $response = self::$api->lastResponse();
        self::assertSame([200, $ping['request_id'], false, 1], [$response->status, $response->requestId, $response->replayed, $response->attempts]);
        self::assertNotNull($response->rateLimit?->remaining);
        $sent = Harness::requests('main')[0];
        self::assertSame('Bearer ' . self::$tenant['key'], $sent['headers']['authorization']);
        self::assertStringStartsWith('invoicing-partner-api-php/', $sent['headers']['user-agent']);
    }

    public function testCustomersEveryMethod(): void
    {
        $created = self::$api->customers->create(['name' => 'Ana Macuácua', 'type' => 'individual', 'email' => 'ana.php@exemplo.co.mz', 'nuit' => '400339910']);
        self::assertSame('400339910', $created['nuit']);
        $posts = Harness::requests('main');
        self::assertCount(1, $posts);
        self::assertMatchesRegularExpression(self::UUID_V4, $posts[0]['headers']['idempotency-key']);
        self::assertSame('application/json', $posts[0]['headers']['content-type']);
        self::assertSame('{"name":"Ana Macuácua","type":"individual","email":"ana.php@exemplo.co.mz","nuit":"400339910"}', $posts[0]['body']);
        self::assertSame($created, self::$api->customers->get($created['id']));
        self::assertSame($created, self::$api->customers->get((string) $created['id']));
        $updated = self::$api->customers->update($created['id'], ['phone' => '+258 84 000 1111']);
        self::assertSame([$created['id'], 'Ana Macuácua', '+258 84 000 1111'], [$updated['id'], $updated['name'], $updated['phone']]);
        $page = self::$api->customers->list(['search' => 'ana.php@', 'per_page' => 10]);
        self::assertSame([$created['id']], array_column($page['data'], 'id'));
        self::assertSame(['total' => 1, 'count' => 1, 'per_page' => 10, 'current_page' => 1, 'last_page' => 1], $page['pagination']);
        self::assertStringEndsWith('?search=ana.php%40&per_page=10', Harness::requests('main')[4]['url']);
        self::assertSame([$created['id']], array_column(iterator_to_array(self::$api->customers->listAll(['search' => 'ana.php@']), false), 'id'));
    }

    public function testAWriteWithItsOwnKeyIsReplayed(): void
    {
        $key = 'order-' . bin2hex(random_bytes(8));
        $first = self::$api->customers->create(['name' => 'Pedido Repetido PHP'], $key);
        self::assertFalse(self::$api->lastResponse()->replayed);
        $again = self::$api->customers->create(['name' => 'Pedido Repetido PHP'], $key);
        self::assertTrue(self::$api->lastResponse()->replayed);
        self::assertSame($first, $again);
        self::assertSame(1, self::$api->customers->list(['search' => 'Pedido Repetido PHP'])['pagination']['total']);
    }

    public function testMoneyRoundTripsExactly(): void
    {
        $product = self::$api->products->create(['name' => 'Parafuso PHP', 'type' => 'GOODS', 'inventory' => 'INVENTORY', 'price' => '0.10', 'pos_price' => '0.20']);
        self::assertSame(['0.10', '0.20', 0], [$product['price'], $product['pos_price'], $product['stock']]);
        $customer = self::$api->customers->create(['name' => 'Loja do Dinheiro Exacto PHP']);
        Harness::reset('main');
        $invoice = self::$api->invoices->create([
            'customer_id' => $customer['id'],
            'invoice_date' => '2026-03-01',
            'items' => [
                ['product_id' => $product['id'], 'quantity' => 1, 'price' => '0.10'],
                ['product_id' => $product['id'], 'quantity' => 1, 'price' => '0.20'],
            ],
        ]);
        $body = Harness::requests('main')[0]['body'];
        self::assertStringContainsString('"quantity":1,"price":0.10}', $body);
        self::assertStringContainsString('"quantity":1,"price":0.20}', $body);
        self::assertSame(['0.30', '0.30', 'draft'], [$invoice['subtotal'], $invoice['grand_total'], $invoice['status']]);
        self::assertStringStartsWith('DRAFT-', $invoice['invoice_code']);
        self::assertSame([['0.10', '0.10'], ['0.20', '0.20']], array_map(fn (array $item): array => [$item['price'], $item['total']], $invoice['items']));
        self::assertSame('0.30', self::$api->invoices->get($invoice['id'])['grand_total']);
        // A float never reaches the wire.
        Harness::reset('main');
        try {
            self::$api->products->update($product['id'], ['name' => 'x', 'type' => 'GOODS', 'inventory' => 'INVENTORY', 'price' => 0.1]);
            self::fail('a float price was sent');
        } catch (\InvalidArgumentException) {
            self::assertSame([], Harness::requests('main'));
        }
    }

    public function testProductsUpdateAndLists(): void
    {
        $product = self::$api->products->create(['name' => 'Consultoria PHP', 'type' => 'SERVICES', 'inventory' => 'NON_INVENTORY', 'price' => '1250.50', 'sku' => 'PHP-01']);
        $updated = self::$api->products->update($product['id'], ['name' => 'Consultoria PHP', 'type' => 'SERVICES', 'inventory' => 'NON_INVENTORY', 'price' => '99.99', 'pos_price' => null]);
        self::assertSame(['99.99', null, 'PHP-01'], [$updated['price'], $updated['pos_price'], $updated['sku']]);
        self::assertSame($updated, self::$api->products->get($product['id']));
        $page = self::$api->products->list(['search' => 'Consultoria PHP', 'is_for_sale' => true]);
        self::assertSame([$product['id']], array_column($page['data'], 'id'));
        self::assertStringContainsString('is_for_sale=true', Harness::requests('main')[3]['url']);
    }

    public function testInvoicesAndPayments(): void
    {
        $customer = self::$api->customers->create(['name' => 'Escola Primária PHP']);
        $product = self::$api->products->create(['name' => 'Manutenção PHP', 'type' => 'SERVICES', 'inventory' => 'NON_INVENTORY', 'price' => '100.00']);
        $invoice = self::$api->invoices->create([
            'customer_id' => $customer['id'],
            'invoice_date' => '2026-02-01',
            'reference' => 'PO-PHP',
            'items' => [['product_id' => $product['id'], 'quantity' => 3, 'price' => '1500.25']],
        ]);
        self::assertSame('4500.75', $invoice['grand_total']);
        $summary = self::$api->invoices->list(['customer_id' => $customer['id'], 'status' => 'draft']);
        self::assertSame([$invoice['id']], array_column($summary['data'], 'id'));
        self::assertArrayNotHasKey('items', $summary['data'][0]);
        // Receipts are recorded in the application (the operator's command line), then read.
        Harness::cli('invoices', 'issue', (string) $invoice['id']);
        Harness::cli('payments', 'record', '--invoice', (string) $invoice['id'], '--amount', '1000.00', '--date', '2026-02-03');
        Harness::cli('payments', 'record', '--invoice', (string) $invoice['id'], '--amount', '500.75', '--date', '2026-02-04');
        $payments = self::$api->payments->list(['invoice_id' => $invoice['id'], 'sort' => 'payment_date']);
        self::assertSame([['2026-02-03', '1000.00'], ['2026-02-04', '500.75']], array_map(fn (array $p): array => [$p['payment_date'], $p['amount']], $payments['data']));
        self::assertSame($payments['data'][0], self::$api->payments->get($payments['data'][0]['id']));
        $amounts = array_column(iterator_to_array(self::$api->payments->listAll(['invoice_id' => $invoice['id']]), false), 'amount');
        sort($amounts, SORT_STRING);
        self::assertSame(['1000.00', '500.75'], $amounts);
        $paid = iterator_to_array(self::$api->invoices->listAll(['customer_id' => $customer['id'], 'status' => 'partially_paid']), false);
        self::assertSame([[$invoice['id'], '1500.75', '3000.00']], array_map(fn (array $i): array => [$i['id'], $i['paid_amount'], $i['remaining_amount']], $paid));
    }

    public function testListAllOverMoreThanThreePagesEqualsTotal(): void
    {
        $own = Harness::tenant('Muitos Clientes PHP, SA');
        $api = Harness::client($own['key'], Harness::proxyUrl());
        // Global customers (of no company) are listed to every company too.
        $shared = $api->customers->list()['pagination']['total'];
        for ($n = 0; $n < 7; $n++) {
            $api->customers->create(['name' => "Cliente {$n}"]);
        }
        Harness::reset('main');
        $total = $api->customers->list()['pagination']['total'];
        $ids = array_column(iterator_to_array($api->customers->listAll(['per_page' => 2, 'sort' => 'created_at']), false), 'id');
        self::assertSame($shared + 7, $total);
        self::assertCount($total, $ids);
        self::assertCount($total, array_unique($ids));
        $last = intdiv($total + 1, 2);
        self::assertGreaterThan(3, $last);
        $pages = array_map(fn (array $r): string => explode('?', $r['url'], 2)[1], array_slice(Harness::requests('main'), 1));
        self::assertSame(array_map(fn (int $n): string => "per_page=2&sort=created_at&page={$n}", range(1, $last)), $pages);
    }

    public function testPagesComeCompressedAndAreDecoded(): void
    {
        $own = Harness::tenant('Clientes Comprimidos PHP, SA');
        $api = Harness::client($own['key'], Harness::proxyUrl());
        $names = [];
        for ($n = 0; $n < 8; $n++) {
            $names[] = "Cliente comprimido {$n}";
            $api->customers->create(['name' => "Cliente comprimido {$n}", 'address' => str_repeat('Avenida 24 de Julho, ', 5)]);
        }
        Harness::reset('main');
        $page = $api->customers->list(['per_page' => 100, 'sort' => 'created_at', 'order' => 'asc']);
        $sent = Harness::requests('main')[0];
        self::assertStringContainsString('gzip', $sent['headers']['accept-encoding']);
        self::assertContains($sent['upstream_encoding'], ['gzip', 'br']);
        $own = array_values(array_filter($page['data'], fn (array $c): bool => str_starts_with($c['name'], 'Cliente comprimido')));
        self::assertSame($names, array_column($own, 'name'));
    }

    public function testA200LineDraftAnswersWholeCompressed(): void
    {
        // A draft of 200 lines is about 40 KB: answered compressed and streamed, it must still
        // carry the whole invoice (it once came back empty, the invoice created but its id lost).
        $customer = self::$api->customers->create(['name' => 'Armazém das 200 Linhas PHP']);
        $product = self::$api->products->create(['name' => 'Parafuso 200 PHP', 'type' => 'GOODS', 'inventory' => 'INVENTORY', 'price' => '1.00']);
        Harness::reset('main');
        $items = array_fill(0, 200, ['product_id' => $product['id'], 'quantity' => 1, 'price' => '1.00']);
        $invoice = self::$api->invoices->create(['customer_id' => $customer['id'], 'invoice_date' => '2026-11-27', 'items' => $items]);
        self::assertIsInt($invoice['id']);
        self::assertSame([200, '200.00'], [count($invoice['items']), $invoice['grand_total']]);
        $sent = Harness::requests('main')[0];
        self::assertContains($sent['upstream_encoding'], ['gzip', 'br']);
        self::assertSame($invoice['id'], self::$api->invoices->get($invoice['id'])['id']);
    }

    public function test422SurfacesAtOnceWithItsFieldErrors(): void
    {
        $customer = self::$api->customers->create(['name' => 'Cliente do 422 PHP']);
        Harness::reset('main');
        $error = self::failure(fn () => self::$api->invoices->create(['customer_id' => $customer['id'], 'invoice_date' => '2026-02-01', 'items' => [['quantity' => 1, 'price' => '12,50']]]));
        self::assertSame([422, 'validation_failed', 1, 422], [$error->status, $error->errorCode, $error->attempts, $error->getCode()]);
        self::assertArrayHasKey('items.0.price', $error->errors);
        self::assertArrayHasKey('items.0.product_id', $error->errors);
        self::assertMatchesRegularExpression('/^req_/', (string) $error->requestId);
        self::assertStringEndsWith('/errors#validation_failed', (string) $error->docUrl);
        self::assertIsString($error->hint);
        $requests = Harness::requests('main');
        self::assertCount(1, $requests);
        self::assertStringContainsString('"price":"12,50"', $requests[0]['body']);
    }

    public function testKeyReuseSurfacesAtOnce(): void
    {
        $key = 'reuse-' . bin2hex(random_bytes(8));
        self::$api->customers->create(['name' => 'Primeiro Corpo PHP'], $key);
        Harness::reset('main');
        $error = self::failure(fn () => self::$api->customers->create(['name' => 'Segundo Corpo PHP'], $key));
        self::assertSame([409, 'idempotency_key_reuse', 1], [$error->status, $error->errorCode, $error->attempts]);
        self::assertCount(1, Harness::requests('main'));
        self::assertSame(0, self::$api->customers->list(['search' => 'Segundo Corpo PHP'])['pagination']['total']);
    }

    public function testOther4xxAreNeverRetried(): void
    {
        self::assertSame('resource_not_found', self::failure(fn () => self::$api->customers->get(99999999))->errorCode);
        $query = self::failure(fn () => self::$api->invoices->list(['sort' => 'amount']));
        self::assertSame([422, 'invalid_query_parameter', null], [$query->status, $query->errorCode, $query->errors]);
        self::assertSame('idempotency_key_invalid', self::failure(fn () => self::$api->customers->create(['name' => 'x'], 'short'))->errorCode);
        $testKey = Harness::tenant('Modo Teste PHP', mode: 'test');
        $testApi = Harness::client($testKey['key'], Harness::proxyUrl());
        self::assertSame('test', $testApi->ping()['mode']);
        $refused = self::failure(fn () => $testApi->customers->create(['name' => 'Nunca Escrito']));
        self::assertSame([403, 'test_mode_read_only', 1], [$refused->status, $refused->errorCode, $refused->attempts]);
        $wrong = self::failure(fn () => Harness::client('svc_sk_live_not-a-real-key', Harness::proxyUrl())->ping());
        self::assertSame([401, 'invalid_api_key'], [$wrong->status, $wrong->errorCode]);
        self::assertCount(6, Harness::requests('main'));
    }
}
