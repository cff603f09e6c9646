<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Offline;

use Invoicing\PartnerApi\OfflineQueue;
use Invoicing\PartnerApi\OfflineQueueKeyMismatchException;
use Invoicing\PartnerApi\OfflineQueueLockedException;
use Invoicing\PartnerApi\OfflineQueueRefConflictException;
use Invoicing\PartnerApi\PartnerApi;
use Invoicing\PartnerApi\Tests\Server\Harness;
use PHPUnit\Framework\TestCase;

/**
 * The offline queue against the real server (npm run test:clients, test/clients/kit/offline-queues.test.ts),
 * through the recording proxy: order and $local ids, lost answers and restarts, refusals, the 24 h
 * look-up (the queue's clock moved on), the store's lock and key, and a till process killed with
 * SIGKILL at random points.
 */
final class OfflineQueueTest extends TestCase
{
    private const HOUR = 3600.0;

    /** @var array{company_id: int, key: string} */
    private static array $tenant;
    private static PartnerApi $api;
    private static int $product;
    private static string $since;
    private string $root;
    private string $path;
    /** @var list<OfflineQueue> */
    private array $queues = [];

    public static function setUpBeforeClass(): void
    {
        self::$tenant = Harness::tenant('Mercearia Sem Rede PHP, Lda');
        self::$api = Harness::client(self::$tenant['key']);
        self::$product = self::$api->products->create(['name' => 'Pão PHP', 'type' => 'GOODS', 'inventory' => 'NON_INVENTORY', 'price' => '150.00'])['id'];
        self::$since = gmdate('Y-m-d\TH:i:s\Z', time() - 3600);
    }

    protected function setUp(): void
    {
        Harness::reset('main');
        $this->root = sys_get_temp_dir() . '/offline-queue-php-' . bin2hex(random_bytes(6));
        $this->path = $this->root . '/till';
    }

    protected function tearDown(): void
    {
        foreach ($this->queues as $queue) {
            $queue->close();
        }
        exec('rm -rf ' . escapeshellarg($this->root));
    }

    /** @param array<string, mixed> $options */
    private function queue(array $options = []): OfflineQueue
    {
        $queue = OfflineQueue::open($this->path, $options + ['apiKey' => self::$tenant['key'], 'baseUrl' => Harness::proxyUrl(), 'retryBaseDelay' => 0.01]);
        $this->queues[] = $queue;
        return $queue;
    }

    /** @return array<string, mixed> */
    private function sale(string $reference, int|array $customer, string $price = '150.00'): array
    {
        return ['customer_id' => $customer, 'invoice_date' => '2026-11-27', 'reference' => $reference, 'items' => [['product_id' => self::$product, 'quantity' => 2, 'price' => $price]]];
    }

    /**
     * @param list<string> $references
     * @return array<string, list<array<string, mixed>>>
     */
    private function invoicesWith(array $references): array
    {
        $found = [];
        foreach (self::$api->invoices->listAll(['updated_since' => self::$since]) as $invoice) {
            if (in_array($invoice['reference'], $references, true)) {
                $found[$invoice['reference']][] = $invoice;
            }
        }
        return $found;
    }

    /** @return list<array<string, mixed>> */
    private function posts(): array
    {
        return array_values(array_filter(Harness::requests('main'), static fn (array $r): bool => $r['method'] === 'POST'));
    }

    public function testACustomerAndASaleNamingItByLocalAreSentInOrderAndTheSalePointsAtIt(): void
    {
        $queue = $this->queue();
        $customer = $queue->enqueue('POST', '/customers', ['name' => 'Ana Macuácua PHP']);
        $sale = $queue->enqueue('POST', '/invoices', $this->sale('PHP-TILL1-1', ['$local' => $customer], '2500.55'));
        self::assertSame(2, $queue->status()['pending']);
        self::assertSame(['sent' => 2, 'found' => 0, 'failed' => 0, 'pending' => 0, 'stopped' => 'empty'], $queue->flush());
        $made = $queue->result($customer);
        $sold = $queue->result($sale);
        $posts = $this->posts();
        self::assertSame(['customers', 'invoices'], array_map(static fn (array $p): string => basename($p['url']), $posts));
        self::assertSame(
            sprintf('{"customer_id":%d,"invoice_date":"2026-11-27","reference":"PHP-TILL1-1","items":[{"product_id":%d,"quantity":2,"price":2500.55}]}', $made['id'], self::$product),
            $posts[1]['body'],
        );
        self::assertSame($made['id'], self::$api->invoices->get($sold['id'])['customer']['id']);
        self::assertNull($queue->status()['oldest_pending_at']);
    }

    public function testAnswersLostAndTheTillRestartedEachEntryIsCreatedOnceWithOneKeyAndTheSameBytes(): void
    {
        Harness::plan('main', [['action' => 'lose-response', 'method' => 'POST', 'times' => 2]]);
        $queue = $this->queue(['maxRetries' => 0]);
        $customer = $queue->enqueue('POST', '/customers', ['name' => 'Cliente Respostas Perdidas PHP']);
        $queue->enqueue('POST', '/invoices', $this->sale('PHP-PERDA-1', ['$local' => $customer]));
        self::assertSame('offline', $queue->flush()['stopped']);
        $queue->close();
        for ($i = 0; $i < 5; $i++) {
            $again = $this->queue(['maxRetries' => 0]);
            $result = $again->flush();
            $again->close();
            if ($result['stopped'] === 'empty') {
                break;
            }
        }
        self::assertSame('empty', $result['stopped']);
        $byKey = [];
        foreach ($this->posts() as $post) {
            $byKey[$post['headers']['idempotency-key']][] = $post['body'];
        }
        self::assertCount(2, $byKey);
        foreach ($byKey as $bodies) {
            self::assertCount(1, array_unique($bodies));
        }
        self::assertCount(1, $this->invoicesWith(['PHP-PERDA-1'])['PHP-PERDA-1']);
        self::assertCount(1, self::$api->customers->list(['search' => 'Cliente Respostas Perdidas PHP'])['data']);
    }

    public function testRefusalsGoToTheFailedListWithTheServerErrorAndBodyDependantsTooThenResendAndDiscard(): void
    {
        $queue = $this->queue();
        $bad = $queue->enqueue('POST', '/customers', ['name' => 'Email Mau PHP', 'email' => 'não-é-email']);
        $dependant = $queue->enqueue('POST', '/invoices', $this->sale('PHP-DEPENDE-1', ['$local' => $bad]));
        $queue->enqueue('POST', '/customers', ['name' => 'Cliente Bom PHP']);
        self::assertSame(['sent' => 1, 'found' => 0, 'failed' => 2, 'pending' => 0, 'stopped' => 'empty'], $queue->flush());
        $failed = $queue->failed();
        self::assertSame([$bad, $dependant], array_column($failed, 'local_id'));
        self::assertSame('{"name":"Email Mau PHP","email":"não-é-email"}', $failed[0]['body']);
        self::assertSame([422, 'validation_failed'], [$failed[0]['error']['status'], $failed[0]['error']['code']]);
        self::assertArrayHasKey('email', $failed[0]['error']['errors']);
        self::assertNotEmpty($failed[0]['error']['request_id']);
        self::assertSame('dependency_failed', $failed[1]['error']['code']);
        $queue->resend($bad, ['name' => 'Email Mau PHP', 'email' => 'corrigido.php@exemplo.co.mz']);
        self::assertSame(2, $queue->status()['pending']);
        self::assertSame(2, $queue->flush()['sent']);
        self::assertSame($queue->result($bad)['id'], $this->invoicesWith(['PHP-DEPENDE-1'])['PHP-DEPENDE-1'][0]['customer']['id']);
        $wrong = $queue->enqueue('POST', '/invoices', $this->sale('PHP-ERRADO', $queue->result($bad)['id'], 'abc'));
        $queue->flush();
        self::assertSame(422, $queue->result($wrong)['error']['status']);
        $queue->discard($wrong);
        self::assertSame('discarded', $queue->result($wrong)['state']);
        self::assertSame([], $queue->failed());
    }

    public function testAfter24HoursASaleCreatedButNeverConfirmedIsFoundByReferenceNotCreatedAgain(): void
    {
        $offset = 0.0;
        $clock = static function () use (&$offset): float {
            return microtime(true) + $offset;
        };
        Harness::plan('main', [['action' => 'lose-response', 'method' => 'POST', 'times' => 1]]);
        $customer = self::$api->customers->create(['name' => 'Dia Seguinte PHP'])['id'];
        $queue = $this->queue(['clock' => $clock, 'maxRetries' => 0]);
        $local = $queue->enqueue('POST', '/invoices', $this->sale('PHP-ONTEM-1', $customer));
        self::assertSame('offline', $queue->flush()['stopped']);
        $offset = 25 * self::HOUR;
        self::assertSame(['sent' => 0, 'found' => 1, 'failed' => 0, 'pending' => 0, 'stopped' => 'empty'], $queue->flush());
        $rows = $this->invoicesWith(['PHP-ONTEM-1'])['PHP-ONTEM-1'];
        self::assertCount(1, $rows);
        self::assertSame(['state' => 'done', 'id' => $rows[0]['id']], $queue->result($local));
        self::assertCount(1, $this->posts());
    }

    public function testAfter24HoursASaleNeverReceivedIsSentWithANewKeyAndCreatedOnce(): void
    {
        $offset = 0.0;
        $clock = static function () use (&$offset): float {
            return microtime(true) + $offset;
        };
        Harness::plan('main', [['action' => 'answer', 'status' => 502, 'method' => 'POST', 'times' => 1]]);
        $customer = self::$api->customers->create(['name' => 'Nunca Chegou PHP'])['id'];
        $queue = $this->queue(['clock' => $clock, 'maxRetries' => 0]);
        $local = $queue->enqueue('POST', '/invoices', $this->sale('PHP-NUNCA-1', $customer));
        self::assertSame('busy', $queue->flush()['stopped']);
        $offset = 25 * self::HOUR;
        self::assertSame(1, $queue->flush()['sent']);
        $keys = array_map(static fn (array $p): string => $p['headers']['idempotency-key'], $this->posts());
        self::assertCount(2, $keys);
        self::assertNotSame($keys[0], $keys[1]);
        $rows = $this->invoicesWith(['PHP-NUNCA-1'])['PHP-NUNCA-1'];
        self::assertCount(1, $rows);
        self::assertSame(['state' => 'done', 'id' => $rows[0]['id']], $queue->result($local));
    }

    public function testOneStorePerTillAndKey(): void
    {
        $queue = $this->queue();
        $queue->enqueue('POST', '/customers', ['name' => 'Dono da Fila PHP']);
        try {
            $this->queue();
            self::fail('a second open of a held store');
        } catch (OfflineQueueLockedException) {
        }
        $queue->close();
        $other = Harness::tenant('Outra Caixa PHP, Lda');
        try {
            $this->queue(['apiKey' => $other['key']]);
            self::fail('another key');
        } catch (OfflineQueueKeyMismatchException) {
        }
        self::assertStringNotContainsString(self::$tenant['key'], (string) file_get_contents($this->path . '/queue.sqlite3'));
        self::assertSame(1, $this->queue()->status()['pending']);
    }

    public function testStatusEstimatesWhenTheQueueIsEmptyFromTheRateLimitHeaders(): void
    {
        $limited = Harness::tenant('Caixa Lenta PHP, Lda', 'limited');
        $now = microtime(true);
        $queue = $this->queue(['apiKey' => $limited['key'], 'baseUrl' => Harness::env('PARTNER_LIMITED_URL'), 'clock' => static fn (): float => $now]);
        $queue->enqueue('POST', '/customers', ['name' => 'Primeiro PHP']);
        self::assertSame(1, $queue->flush()['sent']);
        for ($i = 0; $i < 5; $i++) {
            $queue->enqueue('POST', '/customers', ['name' => "Espera PHP {$i}"]);
        }
        // 2 writes a minute, 1 left: 5 pending take the reset (at most 60 s away) and one more window.
        $wait = (float) (new \DateTimeImmutable($queue->status()['estimated_empty_at']))->format('U.u') - $now;
        self::assertGreaterThan(59, $wait);
        self::assertLessThanOrEqual(121, $wait);
    }

    /**
     * Issue 39 goal 6: at least one answer lost after the server committed it (upstream 201), kills
     * both in enqueue and in flush, and no server row the store does not know.
     */
    public function testKilledWithSigkill20TimesDuringEnqueueAndFlushEverySaleExactlyOnceInOrder(): void
    {
        Harness::plan('main', [['action' => 'lose-response', 'method' => 'POST', 'times' => 15]]);
        $lostAfterCommit = static fn (): int => count(array_filter(
            Harness::requests('main'),
            static fn (array $r): bool => $r['action'] === 'lose-response' && $r['upstream_status'] === 201,
        ));
        $returned = [];
        $kills = 0;
        $inFlush = 0;
        $inEnqueue = 0;
        $lost = 0;
        for ($run = 0; $kills < 20 || $inFlush === 0 || $inEnqueue === 0 || $lost === 0; $run++) {
            self::assertLessThan(80, $run, "kills {$kills}, in flush {$inFlush}, in enqueue {$inEnqueue}, lost {$lost}");
            $plan = ['path' => $this->path, 'api_key' => self::$tenant['key'], 'base_url' => Harness::proxyUrl(), 'product_id' => self::$product, 'run' => "php{$run}", 'rounds' => 3, 'sales_per_round' => 4];
            $child = proc_open([PHP_BINARY, __DIR__ . '/till.php'], [1 => ['pipe', 'w']], $pipes, null, ['TILL_PLAN' => json_encode($plan)] + getenv());
            self::assertIsResource($child);
            $read = [trim((string) fgets($pipes[1]))];
            if ($read[0] === 'open') {
                if ($run % 3 === 0) {
                    // Every third run dies while it enqueues: just after a sale it said had returned.
                    while (end($read) !== '' && !str_starts_with(end($read), 'sale ')) {
                        $read[] = trim((string) fgets($pipes[1]));
                    }
                } else {
                    usleep((int) (mt_rand() / mt_getrandmax() < 0.4 ? mt_rand(0, 15_000) : mt_rand(0, 400_000)));
                }
            }
            $alive = proc_get_status($child)['running'];
            proc_terminate($child, 9);
            $rest = trim((string) stream_get_contents($pipes[1]));
            $lines = array_values(array_filter(array_merge($read, $rest === '' ? [] : explode("\n", $rest)), static fn (string $l): bool => $l !== ''));
            fclose($pipes[1]);
            proc_close($child);
            foreach ($lines as $line) {
                $parts = explode(' ', $line);
                if (in_array($parts[0], ['customer', 'sale'], true) && isset($parts[1])) {
                    $returned[$parts[1]] = true;
                }
            }
            if ($alive) {
                $kills++;
                $last = $lines === [] ? 'start' : explode(' ', end($lines))[0];
                $inFlush += $last === 'flushing' ? 1 : 0;
                $inEnqueue += in_array($last, ['open', 'customer', 'sale'], true) ? 1 : 0;
            }
            $lost = $lostAfterCommit();
        }
        Harness::reset('main');
        $queue = $this->queue();
        for ($i = 0; $i < 5 && $queue->flush()['stopped'] !== 'empty'; $i++) {
        }
        self::assertSame([0, 0], [$queue->status()['pending'], $queue->status()['failed']]);
        $db = new \PDO('sqlite:' . $this->path . '/queue.sqlite3');
        $rows = $db->query('select id, path, body from entries order by seq')->fetchAll(\PDO::FETCH_ASSOC);
        self::assertSame([], array_values(array_diff(array_keys($returned), array_column($rows, 'id'))));
        $references = [];
        foreach ($rows as $index => $row) {
            if ($row['path'] === '/invoices') {
                $references[json_decode($row['body'], true)['reference']] = [$row['id'], $rows[$index - 1]['id']];
            }
        }
        $found = $this->invoicesWith(array_keys($references));
        $previous = 0;
        foreach ($references as $reference => [$sale, $customer]) {
            self::assertCount(1, $found[$reference] ?? [], $reference);
            $invoice = $found[$reference][0];
            self::assertSame(['state' => 'done', 'id' => $invoice['id']], $queue->result($sale));
            self::assertGreaterThan($previous, $invoice['id']);
            $previous = $invoice['id'];
            self::assertSame($queue->result($customer)['id'], $invoice['customer']['id']);
        }
        // Nothing on the server that the store does not hold: no other sale of these runs, and as many
        // of their customers as customer entries.
        $unknown = [];
        foreach (self::$api->invoices->listAll(['updated_since' => self::$since]) as $invoice) {
            if (preg_match('/^V-php[0-9]+-/', (string) $invoice['reference']) === 1 && !isset($references[$invoice['reference']])) {
                $unknown[] = $invoice['reference'];
            }
        }
        self::assertSame([], $unknown);
        $customers = 0;
        foreach (self::$api->customers->listAll(['updated_since' => self::$since]) as $made) {
            $customers += preg_match('/^Cliente php[0-9]+-/', $made['name']) === 1 ? 1 : 0;
        }
        self::assertSame(count($rows) - count($references), $customers);
        fwrite(STDERR, sprintf("\noffline queue (PHP) kills: %d entries, %d kills (%d in flush, %d in enqueue), %d answers lost after the server's 201, %d enqueues returned, 0 duplicates, 0 losses\n", count($rows), $kills, $inFlush, $inEnqueue, $lost, count($returned)));
    }

    /** Issue 39 goal 1: the till's own reference (ref: on enqueue, byRef). */
    public function testTheTillsOwnReferenceSameRefSameBodyIsTheEntryHeldAnotherBodyRefusedByRefAfterRestart(): void
    {
        $customer = self::$api->customers->create(['name' => 'Cliente da Caixa Dois PHP'])['id'];
        $queue = $this->queue();
        $body = $this->sale('PHP-CAIXA2-000007', $customer);
        $first = $queue->enqueue('POST', '/invoices', $body, ref: 'PHP-CAIXA2-000007');
        self::assertSame($first, $queue->enqueue('POST', '/invoices', $body, ref: 'PHP-CAIXA2-000007'));
        try {
            $queue->enqueue('POST', '/invoices', $this->sale('PHP-CAIXA2-000007', $customer, '151.00'), ref: 'PHP-CAIXA2-000007');
            self::fail('another body with the same ref');
        } catch (OfflineQueueRefConflictException $refused) {
            self::assertStringContainsString('"PHP-CAIXA2-000007"', $refused->getMessage());
            self::assertSame(['PHP-CAIXA2-000007', $first], [$refused->ref, $refused->localId]);
        }
        try {
            $queue->enqueue('POST', '/customers', ['name' => 'X'], ref: 'PHP-CAIXA2-000007');
            self::fail('another route with the same ref');
        } catch (OfflineQueueRefConflictException) {
        }
        $plain = ['name' => 'Sem Referência PHP'];
        self::assertNotSame($queue->enqueue('POST', '/customers', $plain), $queue->enqueue('POST', '/customers', $plain));
        $bare = $body;
        unset($bare['reference']);
        $bareId = $queue->enqueue('POST', '/invoices', $bare, ref: 'PHP-CAIXA2-000008');
        self::assertSame($bareId, $queue->enqueue('POST', '/invoices', $bare, ref: 'PHP-CAIXA2-000008'));
        self::assertSame(['local_id' => $first, 'state' => 'pending'], $queue->byRef('PHP-CAIXA2-000007'));
        self::assertNull($queue->byRef('PHP-CAIXA2-000099'));
        try {
            $queue->enqueue('POST', '/customers', $plain, ref: '');
            self::fail('an empty ref');
        } catch (\InvalidArgumentException) {
        }
        self::assertSame(4, $queue->status()['pending']);
        $queue->close();
        $again = $this->queue();
        self::assertSame(['local_id' => $first, 'state' => 'pending'], $again->byRef('PHP-CAIXA2-000007'));
        self::assertSame($first, $again->enqueue('POST', '/invoices', $body, ref: 'PHP-CAIXA2-000007'));
        self::assertSame(4, $again->flush()['sent']);
        $rows = $this->invoicesWith(['PHP-CAIXA2-000007'])['PHP-CAIXA2-000007'];
        self::assertCount(1, $rows);
        self::assertSame(['local_id' => $first, 'state' => 'done', 'id' => $rows[0]['id']], $again->byRef('PHP-CAIXA2-000007'));
        self::assertSame($first, $again->enqueue('POST', '/invoices', $body, ref: 'PHP-CAIXA2-000007'));
        self::assertSame(0, $again->flush()['sent']);
    }

    /** Issue 39 goal 1: killed after sale 7's enqueue, and after its flush, before the till wrote it down. */
    public function testATillKilledBetweenTheQueuesWriteAndItsOwnEnqueuesAgainWithItsRefAndNeverSellsTwice(): void
    {
        $customer = self::$api->customers->create(['name' => 'Consumidor Final PHP'])['id'];
        foreach (['enqueue', 'flush'] as $after) {
            $root = sys_get_temp_dir() . '/offline-sales-php-' . bin2hex(random_bytes(6));
            mkdir($root, 0700);
            try {
                $prefix = 'PHPCAIXA2' . strtoupper($after[0]);
                $plan = ['path' => "{$root}/till", 'record' => "{$root}/vendas.jsonl", 'base_url' => Harness::proxyUrl(), 'api_key' => self::$tenant['key'], 'product_id' => self::$product, 'customer_id' => $customer, 'sales' => 8, 'prefix' => $prefix];
                $child = proc_open([PHP_BINARY, __DIR__ . '/sales-till.php'], [1 => ['pipe', 'w']], $pipes, null, ['TILL_PLAN' => json_encode($plan + ['hang_at' => ['sale' => 7, 'after' => $after]])] + getenv());
                self::assertIsResource($child);
                $mark = $after === 'enqueue' ? 'enqueued 7 ' : 'flushed 7 ';
                $lines = [];
                while ($lines === [] || !str_starts_with(end($lines), $mark)) {
                    $line = fgets($pipes[1]);
                    self::assertNotFalse($line, "the till ended before {$mark}: " . implode(' | ', $lines));
                    $lines[] = trim($line);
                }
                proc_terminate($child, 9);
                fclose($pipes[1]);
                proc_close($child);
                $before = explode(' ', array_values(array_filter($lines, static fn (string $l): bool => str_starts_with($l, 'enqueued 7 ')))[0])[2];
                $again = proc_open([PHP_BINARY, __DIR__ . '/sales-till.php'], [1 => ['pipe', 'w']], $pipes, null, ['TILL_PLAN' => json_encode($plan)] + getenv());
                $output = (string) stream_get_contents($pipes[1]);
                fclose($pipes[1]);
                self::assertSame(0, proc_close($again), $output);
                $requeued = [];
                foreach (explode("\n", $output) as $line) {
                    if (str_starts_with($line, 'again 7 ')) {
                        $requeued[] = explode(' ', $line)[2];
                    }
                }
                self::assertSame([$before], $requeued);
                $numbers = array_map(static fn (int $sale): string => sprintf('%s-%06d', $prefix, $sale), range(1, 8));
                $found = $this->invoicesWith($numbers);
                self::assertSame(array_fill_keys($numbers, 1), array_map('count', array_replace(array_fill_keys($numbers, []), $found)));
                $queue = OfflineQueue::open($plan['path'], ['apiKey' => self::$tenant['key'], 'baseUrl' => Harness::proxyUrl()]);
                self::assertSame(['local_id' => $before, 'state' => 'done', 'id' => $found[$numbers[6]][0]['id']], $queue->byRef($numbers[6]));
                $queue->close();
            } finally {
                exec('rm -rf ' . escapeshellarg($root));
            }
        }
    }

    /** Issue 38: offline stores are private (they hold customers' names, NUITs and e-mails). */
    public function testOfflineStoresArePrivateA0700FolderWith0600FilesALooserOneTightened(): void
    {
        $queue = $this->queue();
        $queue->enqueue('POST', '/customers', ['name' => 'Cliente Privado PHP', 'nuit' => '400339910']);
        $mode = static function (string $path): int {
            clearstatcache();
            return fileperms($path) & 0777;
        };
        self::assertSame(0700, $mode($this->path));
        foreach (array_diff(scandir($this->path), ['.', '..']) as $file) {
            self::assertSame([$file, 0600], [$file, $mode("{$this->path}/{$file}")]);
        }
        $queue->close();
        chmod($this->path, 0755);
        chmod("{$this->path}/queue.sqlite3", 0644);
        $again = $this->queue();
        self::assertSame(0700, $mode($this->path));
        self::assertSame(0600, $mode("{$this->path}/queue.sqlite3"));
        self::assertSame(1, $again->status()['pending']);
    }
}
