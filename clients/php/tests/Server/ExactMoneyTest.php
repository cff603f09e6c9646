<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Server;

use Invoicing\PartnerApi\PartnerApi;
use Invoicing\PartnerApi\PartnerApiException;
use PHPUnit\Framework\TestCase;

/**
 * Issue 38, goal 2: the extreme literals through the PHP client, digit for digit, against the real
 * server: amounts past a binary double's 15 digits are stored as written, never rounded, and more
 * decimals than allowed is the API's 422 naming the field.
 */
final class ExactMoneyTest extends TestCase
{
    private static PartnerApi $api;

    public static function setUpBeforeClass(): void
    {
        $tenant = Harness::tenant('Dinheiro Extremo PHP, Lda');
        self::$api = Harness::client($tenant['key'], Harness::proxyUrl());
    }

    protected function setUp(): void
    {
        Harness::reset('main');
    }

    public function testExtremeLiteralsAreStoredAsWritten(): void
    {
        $product = self::$api->products->create(['name' => 'Extremo PHP', 'type' => 'SERVICES', 'inventory' => 'NON_INVENTORY', 'price' => '9999999999999999.99', 'pos_price' => '9007199254740993']);
        self::assertSame(['9999999999999999.99', '9007199254740993.00'], [$product['price'], $product['pos_price']]);
        $body = Harness::requests('main')[0]['body'];
        self::assertStringContainsString('"price":9999999999999999.99', $body);
        self::assertStringContainsString('"pos_price":9007199254740993', $body);
        $updated = self::$api->products->update($product['id'], ['name' => 'Extremo PHP', 'type' => 'SERVICES', 'inventory' => 'NON_INVENTORY', 'price' => '99999999999999.99']);
        self::assertSame('99999999999999.99', $updated['price']);
        $customer = self::$api->customers->create(['name' => 'Cliente Extremo PHP']);
        $invoice = self::$api->invoices->create([
            'customer_id' => $customer['id'],
            'invoice_date' => '2026-03-01',
            'items' => [['product_id' => $product['id'], 'quantity' => 100, 'price' => '99999999999999.99']],
        ]);
        self::assertSame([['99999999999999.99', '9999999999999999.00']], array_map(fn (array $item): array => [$item['price'], $item['total']], $invoice['items']));
        self::assertSame('9999999999999999.00', $invoice['grand_total']);
    }

    public function testMoreDecimalsThanAllowedIsTheApis422NamingTheField(): void
    {
        try {
            self::$api->products->create(['name' => 'Extremo PHP', 'type' => 'SERVICES', 'inventory' => 'NON_INVENTORY', 'price' => '4.350000000000000001']);
            self::fail('4.350000000000000001 was taken');
        } catch (PartnerApiException $error) {
            self::assertSame([422, 'validation_failed', ['price']], [$error->status, $error->errorCode, array_keys($error->errors ?? [])]);
        }
        self::assertStringContainsString('"price":4.350000000000000001', Harness::requests('main')[0]['body']);
    }
}
