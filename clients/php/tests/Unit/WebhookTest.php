<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Unit;

use Invoicing\PartnerApi\Webhook;
use Invoicing\PartnerApi\WebhookVerificationException;
use PHPUnit\Framework\TestCase;

/** Webhook verification: the Standard Webhooks test vector, rotation, tolerance, tampering. */
final class WebhookTest extends TestCase
{
    // The test vector published with the Standard Webhooks specification.
    private const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    private const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    private const TIMESTAMP = 1614265330;
    private const PAYLOAD = '{"test": 2432232314}';
    private const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

    private static function other(): string
    {
        return 'whsec_' . base64_encode('another secret of 24 bytes!');
    }

    private static function sign(string $secret, string $id, int $timestamp, string $payload): string
    {
        $key = base64_decode(substr($secret, 6), true);
        return 'v1,' . base64_encode(hash_hmac('sha256', "{$id}.{$timestamp}.{$payload}", (string) $key, true));
    }

    /** @return array<string, string> */
    private static function headers(string $signature, int $timestamp = self::TIMESTAMP, string $id = self::MSG_ID): array
    {
        return ['webhook-id' => $id, 'webhook-timestamp' => (string) $timestamp, 'webhook-signature' => $signature];
    }

    public function testTheSpecificationsVector(): void
    {
        self::assertSame(['test' => 2432232314], Webhook::verify(self::PAYLOAD, self::headers(self::SIGNATURE), self::SECRET, now: self::TIMESTAMP));
        self::assertSame(['test' => 2432232314], Webhook::verify(self::PAYLOAD, self::headers(self::SIGNATURE), self::SECRET, now: self::TIMESTAMP + 300));
    }

    public function testHeadersFromServerVariablesOrPsr7(): void
    {
        $server = ['HTTP_WEBHOOK_ID' => self::MSG_ID, 'HTTP_WEBHOOK_TIMESTAMP' => (string) self::TIMESTAMP, 'HTTP_WEBHOOK_SIGNATURE' => self::SIGNATURE, 'REQUEST_METHOD' => 'POST'];
        self::assertSame(['test' => 2432232314], Webhook::verify(self::PAYLOAD, $server, self::SECRET, now: self::TIMESTAMP));
        $psr7 = ['Webhook-Id' => [self::MSG_ID], 'Webhook-Timestamp' => [(string) self::TIMESTAMP], 'Webhook-Signature' => ['v1,AAAA', self::SIGNATURE]];
        self::assertSame(['test' => 2432232314], Webhook::verify(self::PAYLOAD, $psr7, self::SECRET, now: self::TIMESTAMP));
    }

    public function testRotationTwoSignaturesOrTwoSecrets(): void
    {
        $both = self::sign(self::other(), self::MSG_ID, self::TIMESTAMP, self::PAYLOAD) . ' ' . self::SIGNATURE;
        self::assertNotEmpty(Webhook::verify(self::PAYLOAD, self::headers($both), self::SECRET, now: self::TIMESTAMP));
        self::assertNotEmpty(Webhook::verify(self::PAYLOAD, self::headers($both), self::other(), now: self::TIMESTAMP));
        self::assertNotEmpty(Webhook::verify(self::PAYLOAD, self::headers(self::SIGNATURE), [self::other(), self::SECRET], now: self::TIMESTAMP));
    }

    public function testRefused(): void
    {
        $cases = [
            'tampered body' => [str_replace('2432232314', '2432232315', self::PAYLOAD), self::headers(self::SIGNATURE), self::SECRET, 'signature'],
            'other secret' => [self::PAYLOAD, self::headers(self::SIGNATURE), self::other(), 'signature'],
            'other id' => [self::PAYLOAD, self::headers(self::SIGNATURE, id: 'msg_other'), self::SECRET, 'signature'],
            'not v1' => [self::PAYLOAD, self::headers('v2,' . substr(self::SIGNATURE, 3)), self::SECRET, 'signature'],
            'bad base64' => [self::PAYLOAD, self::headers('v1,@@@'), self::SECRET, 'signature'],
            'no signature' => [self::PAYLOAD, ['webhook-id' => self::MSG_ID, 'webhook-timestamp' => (string) self::TIMESTAMP], self::SECRET, 'missing_header'],
            'too old' => [self::PAYLOAD, self::headers(self::SIGNATURE), self::SECRET, 'timestamp', self::TIMESTAMP + 301],
            'too new' => [self::PAYLOAD, self::headers(self::SIGNATURE), self::SECRET, 'timestamp', self::TIMESTAMP - 301],
            'not json' => ['not json', self::headers(self::sign(self::SECRET, self::MSG_ID, self::TIMESTAMP, 'not json')), self::SECRET, 'payload'],
        ];
        foreach ($cases as $name => $case) {
            try {
                Webhook::verify($case[0], $case[1], $case[2], now: $case[4] ?? self::TIMESTAMP);
                self::fail("accepted: {$name}");
            } catch (WebhookVerificationException $error) {
                self::assertSame($case[3], $error->reason, $name);
            }
        }
        self::assertNotEmpty(Webhook::verify(self::PAYLOAD, self::headers(self::SIGNATURE), self::SECRET, tolerance: 600, now: self::TIMESTAMP + 600));
    }
}
