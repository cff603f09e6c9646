<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Server;

use Invoicing\PartnerApi\Webhook;
use Invoicing\PartnerApi\WebhookVerificationException;
use PHPUnit\Framework\TestCase;

/** The webhook helper on real deliveries of the server (bin/invoicing webhooks create + receiver). */
final class WebhooksTest extends TestCase
{
    /** @return array{headers: array<string, string>, body: string} */
    private static function delivery(int $companyId, string $type): array
    {
        return Harness::waitFor(function () use ($companyId, $type) {
            foreach (Harness::deliveries($companyId) as $delivery) {
                if (str_contains($delivery['body'], "\"{$type}\"")) {
                    return $delivery;
                }
            }
            return null;
        }, what: "the {$type} delivery");
    }

    public function testAcceptsARealDeliveryRefusesATamperedOneAndFollowsARotation(): void
    {
        $tenant = Harness::tenant('Recebe Webhooks PHP, Lda');
        $endpoint = Harness::control('POST', '/webhooks', ['company_id' => $tenant['company_id']]);
        $api = Harness::client($tenant['key']);
        $customer = $api->customers->create(['name' => 'Cliente Notificado PHP', 'nuit' => '400339910']);

        $delivery = self::delivery($tenant['company_id'], 'customer.created');
        $event = Webhook::verify($delivery['body'], $delivery['headers'], $endpoint['secret']);
        self::assertSame('customer.created', $event['type']);
        self::assertSame($delivery['headers']['webhook-id'], $event['id']);
        self::assertSame($customer['id'], $event['data']['id']);
        self::assertSame('400339910', $event['data']['nuit']);

        $tampered = str_replace('Cliente Notificado PHP', 'Cliente Falso PHP', $delivery['body']);
        self::assertNotSame($delivery['body'], $tampered);
        foreach ([
            'tampered' => [$tampered, $endpoint['secret'], null, 'signature'],
            'other secret' => [$delivery['body'], 'whsec_' . str_repeat('A', 44), null, 'signature'],
            'stale' => [$delivery['body'], $endpoint['secret'], (int) $delivery['headers']['webhook-timestamp'] + 301, 'timestamp'],
        ] as $name => [$body, $secret, $now, $reason]) {
            try {
                Webhook::verify($body, $delivery['headers'], $secret, now: $now);
                self::fail("accepted: {$name}");
            } catch (WebhookVerificationException $error) {
                self::assertSame($reason, $error->reason, $name);
            }
        }

        // After a rotation both secrets sign: either one verifies.
        $rotated = Harness::cli('webhooks', 'rotate-secret', (string) $endpoint['id']);
        $api->customers->update($customer['id'], ['phone' => '+258 84 123 4567']);
        $updated = self::delivery($tenant['company_id'], 'customer.updated');
        self::assertCount(2, explode(' ', $updated['headers']['webhook-signature']));
        foreach ([$endpoint['secret'], $rotated['secret'], [$endpoint['secret'], $rotated['secret']]] as $secret) {
            self::assertSame('+258 84 123 4567', Webhook::verify($updated['body'], $updated['headers'], $secret)['data']['phone']);
        }
    }
}
