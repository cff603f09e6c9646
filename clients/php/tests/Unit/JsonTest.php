<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Unit;

use Invoicing\PartnerApi\Json;
use PHPUnit\Framework\TestCase;

/** Bodies: compact JSON whose money is written digit for digit, never through a float. */
final class JsonTest extends TestCase
{
    public function testIsCompactJsonKeepingKeyOrderUnicodeAndSlashes(): void
    {
        $body = ['name' => "Água \"Fresca\"/1\n", 'type' => 'company', 'email' => null, 'list' => [1, 'a', null, true]];
        self::assertSame('{"name":"Água \"Fresca\"/1\n","type":"company","email":null,"list":[1,"a",null,true]}', Json::encode($body, Json::noMoney(...)));
        self::assertSame('{"price":"12.50"}', Json::encode(['price' => '12.50'], Json::noMoney(...)));
        self::assertSame('{}', Json::encode([], Json::noMoney(...)));
    }

    public function testDecimalStringsAtMoneyFieldsAreTheNumberLiteralItself(): void
    {
        self::assertSame(
            '{"price":90071992547409.93,"pos_price":0.10,"name":"5.00"}',
            Json::encode(['price' => '90071992547409.93', 'pos_price' => '0.10', 'name' => '5.00'], Json::productMoney(...)),
        );
        // A float would have changed these digits.
        self::assertNotSame('90071992547409.93', json_encode((float) '90071992547409.93'));
        self::assertSame(
            '{"items":[{"price":1.10,"discount":5},{"price":7}],"notes":"3.00"}',
            Json::encode(['items' => [['price' => '1.10', 'discount' => 5], ['price' => '7']], 'notes' => '3.00'], Json::invoiceMoney(...)),
        );
    }

    public function testAFloatAtAMoneyFieldIsRefused(): void
    {
        try {
            Json::encode(['items' => [['price' => 0.1]]], Json::invoiceMoney(...));
            self::fail('a float price was encoded');
        } catch (\InvalidArgumentException $error) {
            self::assertStringContainsString('items.0.price', $error->getMessage());
        }
        $this->expectException(\InvalidArgumentException::class);
        Json::encode(['price' => 12.5], Json::productMoney(...));
    }

    public function testFloatsElsewhereAreShortestWhateverSerializePrecisionSays(): void
    {
        $before = ini_get('serialize_precision');
        ini_set('serialize_precision', '17');
        try {
            self::assertSame('{"items":[{"quantity":0.1}]}', Json::encode(['items' => [['quantity' => 0.1]]], Json::invoiceMoney(...)));
        } finally {
            ini_set('serialize_precision', (string) $before);
        }
        self::assertSame((string) $before, ini_get('serialize_precision'));
    }

    public function testStringsThatAreNotPlainDecimalsStayStrings(): void
    {
        foreach (['12,50', '1e3', '007.5', '.5', '5.', ' 5', '', 'NaN', '1_000', "5\n"] as $text) {
            self::assertSame(['price' => $text], json_decode(Json::encode(['price' => $text], Json::productMoney(...)), true), $text);
        }
    }

    public function testWhatJsonCannotCarry(): void
    {
        foreach ([['quantity' => NAN], ['x' => new \DateTimeImmutable()], ['name' => "\xB1\x31"]] as $body) {
            try {
                Json::encode($body, Json::noMoney(...));
                self::fail('encoded: ' . print_r($body, true));
            } catch (\InvalidArgumentException) {
                self::assertTrue(true);
            }
        }
    }
}
