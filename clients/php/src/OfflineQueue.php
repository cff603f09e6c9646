<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * Writes made while the line is down, kept on disk and sent exactly once when it is back. The queue
 * stores and orders entries; every request goes through its PartnerApi (one transport, pacer, retry
 * budget and deprecation report). The same rules as the TypeScript and Python queues:
 * - enqueue() writes the request, its Idempotency-Key (made there, once) and its body bytes to a
 *   SQLite store (synchronous=FULL: on disk before it returns) and returns a local id;
 * - flush() sends the entries oldest first, each with its key and the same bytes on every attempt;
 *   ['$local' => id] is replaced by the server's id once, and that body is stored before it goes;
 * - the time of an entry's first send is stored before it goes; one sent more than 24 h minus a
 *   margin ago is looked for first (OfflineLookup) and, if not found, sent with a new key;
 * - refusals (4xx) move the entry, and then the entries that name it, to the failed list; no
 *   answer, 429 and 5xx after the client's retries end the flush and keep the entry pending.
 */
final class OfflineQueue
{
    private const DAY = 86400.0;
    /** Options of the queue itself; the others are PartnerApi's (named as its constructor names them). */
    private const OWN = ['clock' => true, 'keyExpiryMargin' => true, 'lookupSkew' => true];

    private readonly \Closure $clock;

    private function __construct(
        private readonly OfflineStore $store,
        private readonly PartnerApi $api,
        callable $clock,
        private readonly float $keyExpiryMargin,
        private readonly float $lookupSkew,
    ) {
        $this->clock = \Closure::fromCallable($clock);
    }

    /**
     * Opens (or makes) the store in the directory `$path`. Options: apiKey, baseUrl (required) and
     * PartnerApi's other options (maxRetries, retryBudget, onPace, onDeprecation...: its defaults);
     * clock (seconds since the epoch, default microtime(true)), keyExpiryMargin (3600 s), lookupSkew
     * (3600 s).
     *
     * @param array<string, mixed> $options
     * @throws OfflineQueueLockedException while another process holds the store
     * @throws OfflineQueueKeyMismatchException when the store was made with another key
     */
    public static function open(string $path, array $options): self
    {
        $api = new PartnerApi(...array_diff_key($options, self::OWN));
        return new self(
            OfflineStore::open($path, (string) $options['apiKey']),
            $api,
            $options['clock'] ?? static fn (): float => microtime(true),
            (float) ($options['keyExpiryMargin'] ?? 3600.0),
            (float) ($options['lookupSkew'] ?? 3600.0),
        );
    }

    /**
     * Stores a write (POST /customers, /products, /invoices; PUT /customers/{id}, /products/{id}) and
     * returns its local id. ['$local' => id] stands for the id of an entry enqueued before. An invoice
     * without reference gets a unique one (the 24 h look-up needs it).
     *
     * `ref:` is the till's own identifier of the operation (its sale number): enqueued again with the
     * same ref and the same body, the entry already held is returned; with another body it is refused
     * (OfflineQueueRefConflictException). Without ref, each call is a new entry.
     *
     * @param array<string, mixed> $body
     * @throws OfflineQueueRefConflictException
     */
    public function enqueue(string $method, string $path, array $body, ?string $ref = null): string
    {
        $digest = null;
        if ($ref !== null) {
            // What a repeat must match: the call as the till made it (before the queue's reference).
            $digest = hash('sha256', "{$method} {$path}\n" . OfflineBody::encode($method, $path, $body)[0]);
            $held = $this->store->row('select id, ref_digest from entries where ref = ?', [self::checkRef($ref)]);
            if ($held !== null) {
                return hash_equals((string) $held['ref_digest'], $digest) ? (string) $held['id']
                    : throw new OfflineQueueRefConflictException($ref, (string) $held['id']);
            }
        }
        if ($method === 'POST' && $path === '/invoices' && (($body['reference'] ?? '') === '' || $body['reference'] === null)) {
            $body['reference'] = 'fila-' . Transport::newKey();
        }
        [$encoded, $waitsFor] = OfflineBody::encode($method, $path, $body);
        foreach ($waitsFor as $local) {
            $row = $this->store->row('select method, state from entries where id = ?', [$local]);
            if ($row === null || $row['method'] !== 'POST' || $row['state'] === 'discarded') {
                throw new \InvalidArgumentException("['\$local' => {$local}] não é uma criação desta fila");
            }
        }
        $id = Transport::newKey();
        $this->store->run(
            'insert into entries (id, method, path, key, body, waits_for, enqueued_at, ref, ref_digest) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
            [$id, $method, $path, Transport::newKey(), $encoded, json_encode($waitsFor), ($this->clock)(), $ref, $digest],
        );
        return $id;
    }

    /**
     * What the queue holds for the till's reference `$ref` (given to enqueue): its local_id and result,
     * or null. Read from the store, so it answers after a crash as before it.
     *
     * @return array{local_id: string, state: string, id?: int, error?: array<string, mixed>}|null
     */
    public function byRef(string $ref): ?array
    {
        $row = $this->store->row('select id from entries where ref = ?', [self::checkRef($ref)]);
        return $row === null ? null : ['local_id' => (string) $row['id']] + $this->result((string) $row['id']);
    }

    /**
     * Sends the pending entries, oldest first. Returns when none is left to send, when the API does
     * not answer (stopped: offline) or is busy (429 or 5xx beyond the retries).
     *
     * @return array{sent: int, found: int, failed: int, pending: int, stopped: string}
     */
    public function flush(): array
    {
        $result = ['sent' => 0, 'found' => 0, 'failed' => 0, 'pending' => 0, 'stopped' => 'empty'];
        foreach ($this->store->column("select id from entries where state = 'pending' order by seq") as $id) {
            try {
                $result[$this->sendOne($this->entry((string) $id))]++;
            } catch (PartnerApiNetworkException) {
                $result['stopped'] = 'offline';
                break;
            } catch (PartnerApiException $error) {
                $result['stopped'] = Transport::retryable($error) ? 'busy' : throw $error;
                break;
            }
        }
        $result['pending'] = (int) $this->store->column("select count(*) from entries where state = 'pending'")[0];
        return $result;
    }

    /** @return array{pending: int, done: int, failed: int, discarded: int, oldest_pending_at: ?string, estimated_empty_at: ?string} */
    public function status(): array
    {
        $counts = ['pending' => 0, 'done' => 0, 'failed' => 0, 'discarded' => 0];
        foreach ($this->store->rows('select state, count(*) as n from entries group by state') as $row) {
            $counts[$row['state']] = (int) $row['n'];
        }
        $oldest = $this->store->column("select min(enqueued_at) from entries where state = 'pending'")[0];
        $wait = $this->api->writesFitIn($counts['pending']);
        return $counts + [
            'oldest_pending_at' => $oldest === null ? null : OfflineLookup::iso((float) $oldest),
            'estimated_empty_at' => $wait === null ? null : OfflineLookup::iso(($this->clock)() + $wait),
        ];
    }

    /** @return array{state: string, id?: int, error?: array<string, mixed>} */
    public function result(string $localId): array
    {
        $entry = $this->entry($localId);
        return ['state' => $entry['state']]
            + ($entry['server_id'] === null ? [] : ['id' => (int) $entry['server_id']])
            + ($entry['error'] === null ? [] : ['error' => json_decode($entry['error'], true)]);
    }

    /** @return list<array{local_id: string, method: string, path: string, body: string, enqueued_at: string, error: array<string, mixed>}> */
    public function failed(): array
    {
        return array_map(static fn (array $row): array => [
            'local_id' => $row['id'],
            'method' => $row['method'],
            'path' => $row['path'],
            'body' => $row['body'],
            'enqueued_at' => OfflineLookup::iso((float) $row['enqueued_at']),
            'error' => json_decode($row['error'], true),
        ], $this->store->rows("select * from entries where state = 'failed' order by seq"));
    }

    /**
     * Puts a failed entry back, with a corrected body if given, and a new key (the refusal created
     * nothing); the entries that failed waiting for it wait again. Its place in the order is kept.
     *
     * @param array<string, mixed>|null $body
     */
    public function resend(string $localId, ?array $body = null): void
    {
        $entry = $this->failedEntry($localId, 'reenvia');
        [$encoded, $waitsFor] = $body === null ? [$entry['body'], json_decode($entry['waits_for'], true)]
            : OfflineBody::encode($entry['method'], $entry['path'], $body);
        $this->store->transaction(function () use ($localId, $encoded, $waitsFor): void {
            $reset = 'update entries set state = \'pending\', key = ?, body = ?, waits_for = ?, first_attempt_at = null, error = null where id = ?';
            $this->store->run($reset, [Transport::newKey(), $encoded, json_encode($waitsFor), $localId]);
            $dependants = "select id, body, waits_for from entries where state = 'failed' and json_extract(error, '$.depends_on') = ?";
            foreach ($this->store->rows($dependants, [$localId]) as $row) {
                $this->store->run($reset, [Transport::newKey(), $row['body'], $row['waits_for'], $row['id']]);
            }
        });
    }

    /** Gives a failed entry up for good (entries that name it stay failed). */
    public function discard(string $localId): void
    {
        $this->failedEntry($localId, 'descarta');
        $this->store->run("update entries set state = 'discarded' where id = ?", [$localId]);
    }

    public function close(): void
    {
        $this->store->close();
    }

    /** @param array<string, mixed> $entry */
    private function sendOne(array $entry): string
    {
        $id = $entry['id'];
        $body = (string) $entry['body'];
        $ids = [];
        foreach (json_decode($entry['waits_for'], true) as $local) {
            $row = $this->store->row('select state, server_id from entries where id = ?', [$local]);
            if ($row === null || $row['state'] !== 'done') {
                $message = "espera pela entrada {$local}, que não foi criada";
                return $this->fail($id, ['status' => null, 'code' => 'dependency_failed', 'message' => $message, 'request_id' => null, 'depends_on' => $local]);
            }
            $ids[$local] = (int) $row['server_id'];
        }
        if ($ids !== []) {
            $body = OfflineBody::putIds($body, $ids);
            $this->store->run("update entries set body = ?, waits_for = '[]' where id = ?", [$body, $id]);
        }
        $first = $entry['first_attempt_at'] === null ? null : (float) $entry['first_attempt_at'];
        $key = $entry['key'];
        if ($first !== null && ($this->clock)() - $first >= self::DAY - $this->keyExpiryMargin) {
            if ($entry['method'] === 'POST') {
                $found = (new OfflineLookup($this->api))->find($entry['path'], $body, $first - $this->lookupSkew);
                if (is_string($found)) {
                    return $this->fail($id, ['status' => null, 'code' => 'unverifiable', 'message' => $found, 'request_id' => null]);
                }
                if ($found !== null) {
                    $this->store->run("update entries set state = 'done', server_id = ?, found = 1, error = null where id = ?", [$found, $id]);
                    return 'found';
                }
            }
            // Not created (or a PUT, which sets the same fields again): a new key for a new first send.
            $key = Transport::newKey();
            $this->store->run('update entries set key = ?, first_attempt_at = null where id = ?', [$key, $id]);
            $first = null;
        }
        if ($first === null) {
            $this->store->run('update entries set first_attempt_at = ? where id = ?', [($this->clock)(), $id]);
        }
        try {
            $answer = $this->api->send($entry['method'], $entry['path'], $body, $key);
        } catch (PartnerApiException $error) {
            if ($error->status === 401 || Transport::retryable($error)) {
                throw $error;
            }
            $failure = ['status' => $error->status, 'code' => $error->errorCode, 'message' => $error->apiMessage, 'request_id' => $error->requestId];
            return $this->fail($id, $failure + ($error->errors ? ['errors' => $error->errors] : []));
        }
        $this->store->run("update entries set state = 'done', server_id = ?, error = null where id = ?", [(int) $answer['data']['id'], $id]);
        return 'sent';
    }

    private static function checkRef(string $ref): string
    {
        if ($ref === '' || (int) preg_match_all('/./us', $ref) > 200) {
            throw new \InvalidArgumentException('ref: um texto de 1 a 200 caracteres');
        }
        return $ref;
    }

    /** @param array<string, mixed> $error */
    private function fail(string $id, array $error): string
    {
        $this->store->run("update entries set state = 'failed', error = ? where id = ?", [json_encode($error, JSON_UNESCAPED_UNICODE), $id]);
        return 'failed';
    }

    /** @return array<string, mixed> */
    private function entry(string $localId): array
    {
        return $this->store->row('select * from entries where id = ?', [$localId])
            ?? throw new \InvalidArgumentException("{$localId}: não é uma entrada desta fila");
    }

    /** @return array<string, mixed> */
    private function failedEntry(string $localId, string $verb): array
    {
        $entry = $this->entry($localId);
        return $entry['state'] === 'failed' ? $entry : throw new \InvalidArgumentException("{$localId}: só uma entrada falhada se {$verb}");
    }
}
