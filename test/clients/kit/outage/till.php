<?php

declare(strict_types=1);

// A till of the outage scenario (offline-outage.test.ts), PHP: the same plan as till.ts.
require __DIR__ . '/../../../../clients/php/autoload.php';

use Invoicing\PartnerApi\OfflineQueue;

$plan = json_decode((string) getenv('TILL_PLAN'), true, 512, JSON_THROW_ON_ERROR);
$started = microtime(true);
$say = static function (string $line): void {
    fwrite(STDOUT, $line . "\n");
    fflush(STDOUT);
};
$queue = OfflineQueue::open($plan['path'], [
    'apiKey' => $plan['apiKey'],
    'baseUrl' => $plan['baseUrl'],
    'clock' => static fn (): float => $plan['clock'] / 1000 + (microtime(true) - $started),
    'retryBaseDelay' => 0.02,
    'maxRetries' => $plan['maxRetries'],
    'timeout' => 10.0,
]);
$say('open');
if ($plan['mode'] === 'enqueue') {
    for ($i = $plan['from']; $i < $plan['from'] + $plan['count']; $i++) {
        $customer = $plan['walkInId'];
        if ($i % $plan['customerEvery'] === 0) {
            $local = $queue->enqueue('POST', '/customers', [
                'name' => "Cliente {$plan['lang']}-{$i}-r{$plan['run']}",
                'email' => "c-{$plan['lang']}-{$i}-r{$plan['run']}@exemplo.co.mz",
            ]);
            $say("customer {$local}");
            $customer = ['$local' => $local];
        }
        $sale = $queue->enqueue('POST', '/invoices', [
            'customer_id' => $customer,
            'invoice_date' => '2026-11-20',
            'reference' => "{$plan['lang']}-{$i}-r{$plan['run']}",
            'items' => [['product_id' => $plan['productId'], 'quantity' => 1 + $i % 3, 'price' => $i % 250 === 249 ? 'abc' : '99.95']],
        ]);
        $say("sale {$sale} {$i}");
    }
}
while (true) {
    $result = $queue->flush();
    $say('flushed ' . json_encode($result));
    if ($plan['mode'] === 'enqueue' || $result['stopped'] !== 'busy') {
        break;
    }
}
$say('status ' . json_encode($queue->status()));
$queue->close();
