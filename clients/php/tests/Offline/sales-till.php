<?php

declare(strict_types=1);

// A till that follows the pattern of the offline-queue page (docs/site/*/fila-offline.md,
// offline-queue.md), for OfflineQueueTest: it writes each sale in its own record first, enqueues it
// with the sale's number as `ref:`, then writes down that it did. On start it enqueues again, with the
// same number and body, every sale of its record not written down as enqueued. TILL_PLAN (JSON): path,
// base_url, api_key, product_id, customer_id, record, sales, prefix, hang_at ({sale, after: "enqueue"
// or "flush"}: stops there until killed).
require __DIR__ . '/../../autoload.php';

use Invoicing\PartnerApi\OfflineQueue;

$plan = json_decode((string) getenv('TILL_PLAN'), true, 512, JSON_THROW_ON_ERROR);
$say = static function (string $line): void {
    fwrite(STDOUT, $line . "\n");
    fflush(STDOUT);
};
// The till's own record: one JSON line per change, on disk before the next step.
$write = static function (array $line) use ($plan): void {
    $record = fopen($plan['record'], 'a');
    fwrite($record, json_encode($line, JSON_UNESCAPED_UNICODE) . "\n");
    fflush($record);
    fsync($record);
    fclose($record);
};
$number = static fn (int $sale): string => sprintf('%s-%06d', $plan['prefix'], $sale);
$hangIf = static function (int $sale, string $after) use ($plan): void {
    if (($plan['hang_at']['sale'] ?? null) === $sale && $plan['hang_at']['after'] === $after) {
        while (true) {
            sleep(60);
        }
    }
};

$lines = [];
if (is_file($plan['record'])) {
    foreach (file($plan['record'], FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
        $lines[] = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
    }
}
$queue = OfflineQueue::open($plan['path'], ['apiKey' => $plan['api_key'], 'baseUrl' => $plan['base_url'], 'retryBaseDelay' => 0.005, 'maxRetries' => 2]);
$say('open');
// After a crash: every sale written but not written down as enqueued goes again, without fear.
$enqueued = [];
foreach ($lines as $line) {
    if ($line['state'] === 'enqueued') {
        $enqueued[$line['sale']] = true;
    }
}
$last = 0;
foreach ($lines as $line) {
    $last = max($last, $line['sale']);
    if ($line['state'] !== 'written' || isset($enqueued[$line['sale']])) {
        continue;
    }
    $local = $queue->enqueue('POST', '/invoices', $line['body'], ref: $number($line['sale']));
    $write(['sale' => $line['sale'], 'state' => 'enqueued', 'local' => $local]);
    $say("again {$line['sale']} {$local}");
}
for ($sale = $last + 1; $sale <= $plan['sales']; $sale++) {
    $body = [
        'customer_id' => $plan['customer_id'],
        'invoice_date' => '2026-11-27',
        'reference' => $number($sale),
        'items' => [['product_id' => $plan['product_id'], 'quantity' => $sale, 'price' => '99.95']],
    ];
    $write(['sale' => $sale, 'state' => 'written', 'body' => $body]);
    $local = $queue->enqueue('POST', '/invoices', $body, ref: $number($sale));
    $say("enqueued {$sale} {$local}");
    $hangIf($sale, 'enqueue');
    $say("flushed {$sale} " . json_encode($queue->flush()));
    $hangIf($sale, 'flush');
    $write(['sale' => $sale, 'state' => 'enqueued', 'local' => $local]);
}
$say('flushed end ' . json_encode($queue->flush()));
$queue->close();
$say('closed');
