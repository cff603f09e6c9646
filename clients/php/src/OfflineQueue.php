<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * Writes made while the line is down, kept on disk and sent exactly once when it is back; the same
 * rules as the TypeScript and Python clients' queues:
 * - enqueue() writes the request, its Idempotency-Key (made there, once) and its body bytes to a
 *   SQLite store (PDO, synchronous=FULL: on disk before it returns) and returns a local id;
 * - flush() sends the entries oldest first, each with its key and the same bytes on every attempt;
 *   an entry is done only when an answer says so; ['$local' => id] is replaced by the server's id
 *   once, before the first send, and that body is stored before it goes;
 * - the time of an entry's first send is stored before it goes: an entry never sent with its key
 *   cannot have created anything; one sent more than 24 h minus a margin ago is looked for first
 *   (an invoice by reference, a product by sku, a customer by NUIT, e-mail or phone) and, if not
 *   found, sent with a new key;
 * - refusals (4xx) move the entry, and then the entries that name it, to the failed list; no
 *   answer, 429 and 5xx after the client's retries end the flush and keep the entry pending;
 * - one process per store (flock on a lock file, released by the system when the process dies);
 *   a store refuses another API key than the one it was made with (only a salted hash is kept).
 */
final class OfflineQueue
{
    private const DAY = 86400.0;
    private const LOCAL_ID = '/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/D';
    // Inside a JSON string every quote is escaped: this text can only be a {"$local": id} object.
    private const LOCAL_REF = '/\{"\$local":"([0-9a-f-]{36})"\}/';
    private const ROUTES = [
        ['POST', '#^/customers$#D', 'noMoney'],
        ['POST', '#^/products$#D', 'productMoney'],
        ['POST', '#^/invoices$#D', 'invoiceMoney'],
        ['PUT', '#^/customers/[1-9][0-9]*$#D', 'noMoney'],
        ['PUT', '#^/products/[1-9][0-9]*$#D', 'productMoney'],
    ];

    /** @var resource|null */
    private $lock;
    private readonly \Closure $clock;

    /** @param resource $lock */
    private function __construct(
        private readonly \PDO $db,
        $lock,
        private readonly Transport $transport,
        private readonly Pacer $pacer,
        callable $clock,
        private readonly float $keyExpiryMargin,
        private readonly float $lookupSkew,
    ) {
        $this->lock = $lock;
        $this->clock = \Closure::fromCallable($clock);
    }

    /**
     * Opens (or makes) the store in the directory `$path`. Options: apiKey, baseUrl (required);
     * clock (seconds since the epoch, default microtime(true)), keyExpiryMargin (3600 s),
     * lookupSkew (3600 s), maxRetries (4), timeout (30 s), retryBaseDelay (1 s), maxRetryWait (60 s),
     * onPace.
     *
     * @param array<string, mixed> $options
     * @throws OfflineQueueLockedException while another process holds the store
     * @throws OfflineQueueKeyMismatchException when the store was made with another key
     */
    public static function open(string $path, array $options): self
    {
        $apiKey = (string) ($options['apiKey'] ?? '');
        $baseUrl = (string) ($options['baseUrl'] ?? '');
        if ($apiKey === '') {
            throw new \InvalidArgumentException('apiKey is required');
        }
        if (preg_match('#^https?://#', $baseUrl) !== 1) {
            throw new \InvalidArgumentException('baseUrl must be an http(s) address ending in /api/v1/partner');
        }
        // The owner's only (0700, its files 0600): the entries hold customers' names, NUITs and
        // e-mails. A folder made looser before (or by hand) is tightened.
        if (!is_dir($path) && !@mkdir($path, 0700, true) && !is_dir($path)) {
            throw new \RuntimeException("não foi possível criar {$path}");
        }
        if (!chmod($path, 0700)) {
            throw new \RuntimeException("não foi possível restringir {$path} ao seu dono (0700)");
        }
        $lock = fopen($path . '/lock', 'c+');
        if ($lock === false) {
            throw new \RuntimeException("não foi possível abrir {$path}/lock");
        }
        chmod($path . '/lock', 0600);
        if (!flock($lock, LOCK_EX | LOCK_NB)) {
            $holder = trim((string) stream_get_contents($lock));
            fclose($lock);
            throw new OfflineQueueLockedException("a fila em {$path} está em uso pelo processo " . ($holder !== '' ? $holder : '?'));
        }
        try {
            ftruncate($lock, 0);
            fwrite($lock, (string) getmypid());
            fflush($lock);
            $store = $path . '/queue.sqlite3';
            // Made 0600 before SQLite opens it: its -wal and -shm files take the same mode.
            if (!file_exists($store)) {
                fclose(fopen($store, 'c'));
            }
            foreach ([$store, $store . '-wal', $store . '-shm'] as $file) {
                if (file_exists($file)) {
                    chmod($file, 0600);
                }
            }
            $db = new \PDO('sqlite:' . $store, null, null, [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION]);
            $db->exec('pragma journal_mode=wal');
            $db->exec('pragma synchronous=full');
            $db->exec('create table if not exists meta (name text primary key, value text not null)');
            $db->exec(<<<'SQL'
                create table if not exists entries (
                  seq integer primary key autoincrement,
                  id text not null unique,
                  method text not null,
                  path text not null,
                  key text not null,
                  body blob not null,
                  waits_for text not null,
                  enqueued_at real not null,
                  first_attempt_at real,
                  state text not null default 'pending',
                  server_id integer,
                  found integer not null default 0,
                  error text
                )
                SQL);
            // Added with the till's own reference (a store made before gets them here).
            $columns = array_column($db->query('pragma table_info(entries)')->fetchAll(\PDO::FETCH_ASSOC), 'name');
            foreach (['ref', 'ref_digest'] as $column) {
                if (!in_array($column, $columns, true)) {
                    $db->exec("alter table entries add column {$column} text");
                }
            }
            $db->exec('create unique index if not exists entries_ref on entries (ref) where ref is not null');
            $stored = $db->query("select value from meta where name = 'key'")->fetchColumn();
            if ($stored === false) {
                $salt = bin2hex(random_bytes(16));
                $db->prepare("insert into meta (name, value) values ('key', ?)")->execute([$salt . ':' . hash('sha256', $salt . $apiKey)]);
            } else {
                [$salt, $digest] = explode(':', (string) $stored);
                if (!hash_equals($digest, hash('sha256', $salt . $apiKey))) {
                    throw new OfflineQueueKeyMismatchException("a fila em {$path} foi criada com outra chave: use uma fila por caixa e por chave");
                }
            }
        } catch (\Throwable $error) {
            flock($lock, LOCK_UN);
            fclose($lock);
            throw $error;
        }
        $maxRetryWait = (float) ($options['maxRetryWait'] ?? 60.0);
        $pacer = new Pacer($maxRetryWait, $options['onPace'] ?? null);
        $transport = new Transport(
            $apiKey,
            $baseUrl,
            (int) ($options['maxRetries'] ?? 4),
            (float) ($options['timeout'] ?? 30.0),
            (float) ($options['retryBaseDelay'] ?? 1.0),
            $maxRetryWait,
            'invoicing-partner-api-php/' . PartnerApi::VERSION . ' PHP/' . PHP_VERSION . ' offline-queue',
            null,
            $pacer,
        );
        return new self(
            $db,
            $lock,
            $transport,
            $pacer,
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
     * same ref and the same body (after a crash, say), the entry already held is returned, never a
     * second one; with another body it is refused (OfflineQueueRefConflictException). Without ref,
     * each call is a new entry.
     *
     * @param array<string, mixed> $body
     * @throws OfflineQueueRefConflictException
     */
    public function enqueue(string $method, string $path, array $body, ?string $ref = null): string
    {
        $this->ensureOpen();
        $digest = null;
        if ($ref !== null) {
            self::checkRef($ref);
            // What a repeat must match: the call as the till made it (before the queue's reference).
            $digest = hash('sha256', "{$method} {$path}\n" . self::encode($method, $path, $body)[0]);
            $held = $this->row('select id, ref_digest from entries where ref = ?', [$ref]);
            if ($held !== null) {
                if (!hash_equals((string) $held['ref_digest'], $digest)) {
                    throw new OfflineQueueRefConflictException($ref, (string) $held['id']);
                }
                return (string) $held['id'];
            }
        }
        if ($method === 'POST' && $path === '/invoices' && (($body['reference'] ?? '') === '' || $body['reference'] === null)) {
            $body['reference'] = 'fila-' . self::uuid4();
        }
        [$encoded, $waitsFor] = self::encode($method, $path, $body);
        foreach ($waitsFor as $local) {
            $row = $this->row('select method, state from entries where id = ?', [$local]);
            if ($row === null || $row['method'] !== 'POST' || $row['state'] === 'discarded') {
                throw new \InvalidArgumentException("['\$local' => {$local}] não é uma criação desta fila");
            }
        }
        $id = self::uuid4();
        $this->db->prepare('insert into entries (id, method, path, key, body, waits_for, enqueued_at, ref, ref_digest) values (?, ?, ?, ?, ?, ?, ?, ?, ?)')
            ->execute([$id, $method, $path, self::uuid4(), $encoded, json_encode($waitsFor), ($this->clock)(), $ref, $digest]);
        return $id;
    }

    /**
     * What the queue holds for the till's reference `$ref` (given to enqueue): its local_id and result
     * (state, the server's id once done, the refusal once failed), or null. Read from the store, so it
     * answers after a crash as before it.
     *
     * @return array{local_id: string, state: string, id?: int, error?: array<string, mixed>}|null
     */
    public function byRef(string $ref): ?array
    {
        $this->ensureOpen();
        self::checkRef($ref);
        $row = $this->row('select id from entries where ref = ?', [$ref]);
        return $row === null ? null : ['local_id' => (string) $row['id']] + $this->result((string) $row['id']);
    }

    private static function checkRef(string $ref): void
    {
        if ($ref === '' || (int) preg_match_all('/./us', $ref) > 200) {
            throw new \InvalidArgumentException('ref must be a string of 1 to 200 characters');
        }
    }

    /**
     * Sends the pending entries, oldest first. Returns when none is left to send, when the API does
     * not answer (stopped: offline) or is busy (429 or 5xx beyond the retries).
     *
     * @return array{sent: int, found: int, failed: int, pending: int, stopped: string}
     */
    public function flush(): array
    {
        $this->ensureOpen();
        $result = ['sent' => 0, 'found' => 0, 'failed' => 0, 'pending' => 0, 'stopped' => 'empty'];
        $ids = $this->db->query("select id from entries where state = 'pending' order by seq")->fetchAll(\PDO::FETCH_COLUMN);
        foreach ($ids as $id) {
            try {
                $result[$this->sendOne($this->entry((string) $id))]++;
            } catch (PartnerApiNetworkException) {
                $result['stopped'] = 'offline';
                break;
            } catch (PartnerApiException $error) {
                if ($error->status === 401 || self::refusal($error)) {
                    throw $error;
                }
                $result['stopped'] = 'busy';
                break;
            }
        }
        $result['pending'] = (int) $this->db->query("select count(*) from entries where state = 'pending'")->fetchColumn();
        return $result;
    }

    /** @return array{pending: int, done: int, failed: int, discarded: int, oldest_pending_at: ?string, estimated_empty_at: ?string} */
    public function status(): array
    {
        $this->ensureOpen();
        $counts = ['pending' => 0, 'done' => 0, 'failed' => 0, 'discarded' => 0];
        foreach ($this->db->query('select state, count(*) as n from entries group by state') as $row) {
            $counts[$row['state']] = (int) $row['n'];
        }
        $oldest = $this->db->query("select min(enqueued_at) from entries where state = 'pending'")->fetchColumn();
        $wait = $this->emptyIn($counts['pending']);
        return $counts + [
            'oldest_pending_at' => $oldest === null ? null : self::iso((float) $oldest),
            'estimated_empty_at' => $wait === null ? null : self::iso(($this->clock)() + $wait),
        ];
    }

    /** @return array{state: string, id?: int, error?: array<string, mixed>} */
    public function result(string $localId): array
    {
        $entry = $this->entry($localId);
        $result = ['state' => $entry['state']];
        if ($entry['server_id'] !== null) {
            $result['id'] = (int) $entry['server_id'];
        }
        if ($entry['error'] !== null) {
            $result['error'] = json_decode($entry['error'], true);
        }
        return $result;
    }

    /** @return list<array{local_id: string, method: string, path: string, body: string, enqueued_at: string, error: array<string, mixed>}> */
    public function failed(): array
    {
        $this->ensureOpen();
        $failed = [];
        foreach ($this->db->query("select * from entries where state = 'failed' order by seq") as $row) {
            $failed[] = [
                'local_id' => $row['id'],
                'method' => $row['method'],
                'path' => $row['path'],
                'body' => $row['body'],
                'enqueued_at' => self::iso((float) $row['enqueued_at']),
                'error' => json_decode($row['error'], true),
            ];
        }
        return $failed;
    }

    /**
     * Puts a failed entry back, with a corrected body if given, and a new key (the refusal created
     * nothing); the entries that failed waiting for it wait again. Its place in the order is kept.
     *
     * @param array<string, mixed>|null $body
     */
    public function resend(string $localId, ?array $body = null): void
    {
        $entry = $this->entry($localId);
        if ($entry['state'] !== 'failed') {
            throw new \InvalidArgumentException("{$localId}: só uma entrada falhada se reenvia");
        }
        [$encoded, $waitsFor] = $body === null
            ? [$entry['body'], json_decode($entry['waits_for'], true)]
            : self::encode($entry['method'], $entry['path'], $body);
        $this->db->beginTransaction();
        try {
            $this->reset($localId, $encoded, $waitsFor);
            $dependants = $this->db->prepare("select id, body, waits_for from entries where state = 'failed' and json_extract(error, '$.depends_on') = ?");
            $dependants->execute([$localId]);
            foreach ($dependants->fetchAll(\PDO::FETCH_ASSOC) as $row) {
                $this->reset($row['id'], $row['body'], json_decode($row['waits_for'], true));
            }
            $this->db->commit();
        } catch (\Throwable $error) {
            $this->db->rollBack();
            throw $error;
        }
    }

    /** Gives a failed entry up for good (entries that name it stay failed). */
    public function discard(string $localId): void
    {
        $entry = $this->entry($localId);
        if ($entry['state'] !== 'failed') {
            throw new \InvalidArgumentException("{$localId}: só uma entrada falhada se descarta");
        }
        $this->db->prepare("update entries set state = 'discarded' where id = ?")->execute([$localId]);
    }

    public function close(): void
    {
        if ($this->lock === null) {
            return;
        }
        flock($this->lock, LOCK_UN);
        fclose($this->lock);
        $this->lock = null;
    }

    /** @param array<string, mixed> $entry */
    private function sendOne(array $entry): string
    {
        $id = $entry['id'];
        $body = (string) $entry['body'];
        $waitsFor = json_decode($entry['waits_for'], true);
        if ($waitsFor !== []) {
            $ids = [];
            foreach ($waitsFor as $local) {
                $row = $this->row('select state, server_id from entries where id = ?', [$local]);
                if ($row === null || $row['state'] !== 'done') {
                    $this->fail($id, [
                        'status' => null,
                        'code' => 'dependency_failed',
                        'message' => "espera pela entrada {$local}, que não foi criada",
                        'request_id' => null,
                        'depends_on' => $local,
                    ]);
                    return 'failed';
                }
                $ids[$local] = (int) $row['server_id'];
            }
            $body = (string) preg_replace_callback(self::LOCAL_REF, static fn (array $m): string => (string) $ids[$m[1]], $body);
            $this->db->prepare("update entries set body = ?, waits_for = '[]' where id = ?")->execute([$body, $id]);
        }
        $first = $entry['first_attempt_at'] === null ? null : (float) $entry['first_attempt_at'];
        $key = $entry['key'];
        if ($first !== null && ($this->clock)() - $first >= self::DAY - $this->keyExpiryMargin) {
            if ($entry['method'] === 'POST') {
                $found = $this->lookUp($entry['path'], $body, $first - $this->lookupSkew);
                if (is_string($found)) {
                    $this->fail($id, ['status' => null, 'code' => 'unverifiable', 'message' => $found, 'request_id' => null]);
                    return 'failed';
                }
                if ($found !== null) {
                    $this->db->prepare("update entries set state = 'done', server_id = ?, found = 1, error = null where id = ?")->execute([$found, $id]);
                    return 'found';
                }
            }
            // Not created (or a PUT, which sets the same fields again): a new key for a new first send.
            $key = self::uuid4();
            $this->db->prepare('update entries set key = ?, first_attempt_at = null where id = ?')->execute([$key, $id]);
            $first = null;
        }
        if ($first === null) {
            $this->db->prepare('update entries set first_attempt_at = ? where id = ?')->execute([($this->clock)(), $id]);
        }
        try {
            $answer = $this->transport->call($entry['method'], $entry['path'], [], $body, $key);
        } catch (PartnerApiException $error) {
            if ($error->status === 401 || !self::refusal($error)) {
                throw $error;
            }
            $failure = ['status' => $error->status, 'code' => $error->errorCode, 'message' => $error->apiMessage, 'request_id' => $error->requestId];
            if ($error->errors) {
                $failure['errors'] = $error->errors;
            }
            $this->fail($id, $failure);
            return 'failed';
        }
        $this->db->prepare("update entries set state = 'done', server_id = ?, error = null where id = ?")->execute([(int) $answer['data']['id'], $id]);
        return 'sent';
    }

    /** The id of the record a POST may have created, null, or why it cannot be told (a string). */
    private function lookUp(string $path, string $body, float $since): int|string|null
    {
        $data = json_decode($body, true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
        $query = ['updated_since' => self::iso($since)];
        if ($path === '/invoices') {
            $reference = self::text($data['reference'] ?? null);
            return $reference === null ? 'a factura não tem reference'
                : $this->scan('invoices', $query, static fn (array $i): bool => ($i['reference'] ?? null) === $reference);
        }
        if ($path === '/products') {
            $sku = self::text($data['sku'] ?? null);
            return $sku === null ? 'o produto não tem sku'
                : $this->scan('products', $query + ['search' => $sku], static fn (array $p): bool => ($p['sku'] ?? null) === $sku);
        }
        $nuit = self::digits($data['nuit'] ?? null);
        $email = strtolower(self::text($data['email'] ?? null) ?? '');
        $phone = self::digits($data['phone'] ?? null);
        $search = $nuit !== '' ? $nuit : ($email !== '' ? $email : self::text($data['phone'] ?? null));
        if ($search === null) {
            return 'o cliente não tem NUIT, e-mail nem telefone';
        }
        return $this->scan('customers', $query + ['search' => $search], static fn (array $c): bool => match (true) {
            $nuit !== '' => self::digits($c['nuit'] ?? null) === $nuit,
            $email !== '' => strtolower((string) ($c['email'] ?? '')) === $email,
            default => $phone !== '' && self::digits($c['phone'] ?? null) === $phone,
        });
    }

    /** @param array<string, mixed> $query */
    private function scan(string $collection, array $query, callable $matches): ?int
    {
        for ($page = 1; ; $page++) {
            $answer = $this->transport->call('GET', "/{$collection}", $query + ['sort' => 'updated_at', 'order' => 'asc', 'per_page' => 100, 'page' => $page]);
            foreach ($answer['data'] as $item) {
                if ($matches($item)) {
                    return (int) $item['id'];
                }
            }
            if ($answer['pagination']['current_page'] >= $answer['pagination']['last_page'] || $answer['data'] === []) {
                return null;
            }
        }
    }

    /** Seconds until `$writes` more writes fit in every write limit the client knows of. */
    private function emptyIn(int $writes): ?float
    {
        if ($writes === 0) {
            return 0.0;
        }
        $longest = null;
        foreach ($this->pacer->snapshot() as $limit) {
            if (!in_array('write', $limit->appliesTo, true) || !$limit->quota || !$limit->windowSeconds) {
                continue;
            }
            $left = max(0, $limit->remaining ?? $limit->quota);
            $beyond = $writes - $left;
            $wait = $beyond <= 0 ? 0.0 : ($limit->resetIn ?? 0.0) + (intdiv($beyond + $limit->quota - 1, $limit->quota) - 1) * $limit->windowSeconds;
            $longest = max($longest ?? 0.0, $wait);
        }
        return $longest;
    }

    /**
     * @param array<string, mixed> $body
     * @return array{0: string, 1: list<string>}
     */
    private static function encode(string $method, string $path, array $body): array
    {
        $money = null;
        foreach (self::ROUTES as [$routeMethod, $pattern, $isMoney]) {
            if ($routeMethod === $method && preg_match($pattern, $path) === 1) {
                $money = $isMoney;
            }
        }
        if ($money === null) {
            throw new \InvalidArgumentException("{$method} {$path}: a fila aceita POST /customers, /products, /invoices e PUT /customers/{id}, /products/{id}");
        }
        $found = [];
        self::localsOf($body, '', $found);
        return [Json::encode($body, [Json::class, $money]), $found];
    }

    /** @param list<string> $found */
    private static function localsOf(mixed $value, string $where, array &$found): void
    {
        if (!is_array($value)) {
            return;
        }
        if (array_key_exists('$local', $value)) {
            $local = $value['$local'];
            if (count($value) !== 1 || !is_string($local) || preg_match(self::LOCAL_ID, $local) !== 1) {
                throw new \InvalidArgumentException(($where === '' ? 'body' : $where) . ": ['\$local' => id] takes only a local id returned by enqueue");
            }
            if (!in_array($local, $found, true)) {
                $found[] = $local;
            }
            return;
        }
        foreach ($value as $key => $field) {
            self::localsOf($field, $where === '' ? (string) $key : "{$where}.{$key}", $found);
        }
    }

    private static function refusal(PartnerApiException $error): bool
    {
        if ($error->status === 429 || $error->status >= 500) {
            return false;
        }
        return !($error->status === 409 && $error->errorCode === 'idempotency_request_in_flight');
    }

    /** @param array<string, mixed> $error */
    private function fail(string $id, array $error): void
    {
        $this->db->prepare("update entries set state = 'failed', error = ? where id = ?")->execute([json_encode($error, JSON_UNESCAPED_UNICODE), $id]);
    }

    /** @param list<string> $waitsFor */
    private function reset(string $id, string $body, array $waitsFor): void
    {
        $this->db->prepare("update entries set state = 'pending', key = ?, body = ?, waits_for = ?, first_attempt_at = null, error = null where id = ?")
            ->execute([self::uuid4(), $body, json_encode($waitsFor), $id]);
    }

    /** @return array<string, mixed> */
    private function entry(string $localId): array
    {
        $this->ensureOpen();
        $row = $this->row('select * from entries where id = ?', [$localId]);
        if ($row === null) {
            throw new \InvalidArgumentException("{$localId}: não é uma entrada desta fila");
        }
        return $row;
    }

    /**
     * @param list<mixed> $params
     * @return array<string, mixed>|null
     */
    private function row(string $sql, array $params): ?array
    {
        $statement = $this->db->prepare($sql);
        $statement->execute($params);
        $row = $statement->fetch(\PDO::FETCH_ASSOC);
        return $row === false ? null : $row;
    }

    private function ensureOpen(): void
    {
        if ($this->lock === null) {
            throw new \LogicException('a fila está fechada');
        }
    }

    private static function iso(float $seconds): string
    {
        return gmdate('Y-m-d\TH:i:s', (int) floor($seconds)) . sprintf('.%03dZ', (int) (fmod($seconds, 1.0) * 1000));
    }

    private static function text(mixed $value): ?string
    {
        return is_string($value) && trim($value) !== '' ? trim($value) : null;
    }

    private static function digits(mixed $value): string
    {
        return is_string($value) ? (string) preg_replace('/[^0-9]/', '', $value) : '';
    }

    private static function uuid4(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0f) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }
}
