<?php

declare(strict_types=1);

// A till for the kill test (OfflineQueueTest): enqueues sales (a new customer and an invoice naming it
// by $local) in rounds with a flush after each, saying on stdout each thing that returned.
require __DIR__ . '/../../autoload.php';

use Invoicing\PartnerApi\OfflineQueue;

$plan = json_decode((string) getenv('TILL_PLAN'), true, 512, JSON_THROW_ON_ERROR);
$say = static function (string $line): void {
    fwrite(STDOUT, $line . "\n");
    fflush(STDOUT);
};
$queue = OfflineQueue::open($plan['path'], ['apiKey' => $plan['api_key'], 'baseUrl' => $plan['base_url'], 'retryBaseDelay' => 0.005, 'maxRetries' => 2]);
$say('open');
for ($round = 0; $round < $plan['rounds']; $round++) {
    for ($i = 0; $i < $plan['sales_per_round']; $i++) {
        $name = "{$plan['run']}-{$round}-{$i}";
        $customer = $queue->enqueue('POST', '/customers', ['name' => "Cliente {$name}"]);
        $say("customer {$customer} {$name}");
        $sale = $queue->enqueue('POST', '/invoices', [
            'customer_id' => ['$local' => $customer],
            'invoice_date' => '2026-11-27',
            'reference' => "V-{$name}",
            'items' => [['product_id' => $plan['product_id'], 'quantity' => 1 + $i, 'price' => '99.95']],
        ]);
        $say("sale {$sale} V-{$name}");
    }
    $say('flushing');
    $say('flushed ' . json_encode($queue->flush()));
}
$queue->close();
$say('closed');
