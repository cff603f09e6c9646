<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * The offline queue's store: a directory of the till's own (0700, files 0600: the entries hold
 * customers' names, NUITs and e-mails) with a lock file and a SQLite database (WAL,
 * synchronous=FULL). One process per store (flock, released by the system when the process dies);
 * a store refuses another API key than the one it was made with (only a salted hash is kept).
 *
 * @internal
 */
final class OfflineStore
{
    /** @param resource|null $lock */
    private function __construct(private readonly \PDO $db, private $lock)
    {
    }

    public static function open(string $path, string $apiKey): self
    {
        // A folder made looser before (or by hand) is tightened.
        if (!is_dir($path) && !@mkdir($path, 0700, true) && !is_dir($path)) {
            throw new \RuntimeException("não foi possível criar {$path}");
        }
        if (!chmod($path, 0700)) {
            throw new \RuntimeException("não foi possível restringir {$path} ao seu dono (0700)");
        }
        $lock = fopen($path . '/lock', 'c+') ?: throw new \RuntimeException("não foi possível abrir {$path}/lock");
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
            $file = $path . '/queue.sqlite3';
            // Made 0600 before SQLite opens it: its -wal and -shm files take the same mode.
            touch($file);
            foreach ([$file, $file . '-wal', $file . '-shm'] as $made) {
                file_exists($made) && chmod($made, 0600);
            }
            $store = new self(new \PDO('sqlite:' . $file, null, null, [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION]), $lock);
            $store->db->exec((string) file_get_contents(__DIR__ . '/offline-queue.sql'));
            // A store made before the till's own reference gets its columns here.
            $columns = array_column($store->rows('pragma table_info(entries)'), 'name');
            foreach (array_diff(['ref', 'ref_digest'], $columns) as $column) {
                $store->db->exec("alter table entries add column {$column} text");
            }
            $store->db->exec('create unique index if not exists entries_ref on entries (ref) where ref is not null');
            $stored = $store->row("select value from meta where name = 'key'", []);
            if ($stored === null) {
                $salt = bin2hex(random_bytes(16));
                $store->run("insert into meta (name, value) values ('key', ?)", [$salt . ':' . hash('sha256', $salt . $apiKey)]);
            } elseif (!hash_equals(explode(':', (string) $stored['value'])[1], hash('sha256', explode(':', (string) $stored['value'])[0] . $apiKey))) {
                throw new OfflineQueueKeyMismatchException("a fila em {$path} foi criada com outra chave: use uma fila por caixa e por chave");
            }
            return $store;
        } catch (\Throwable $error) {
            flock($lock, LOCK_UN);
            fclose($lock);
            throw $error;
        }
    }

    /** @param list<mixed> $params */
    public function run(string $sql, array $params): void
    {
        $this->statement($sql, $params);
    }

    /**
     * @param list<mixed> $params
     * @return array<string, mixed>|null
     */
    public function row(string $sql, array $params): ?array
    {
        $row = $this->statement($sql, $params)->fetch(\PDO::FETCH_ASSOC);
        return $row === false ? null : $row;
    }

    /**
     * @param list<mixed> $params
     * @return list<array<string, mixed>>
     */
    public function rows(string $sql, array $params = []): array
    {
        return $this->statement($sql, $params)->fetchAll(\PDO::FETCH_ASSOC);
    }

    /** @return list<mixed> */
    public function column(string $sql): array
    {
        return $this->statement($sql, [])->fetchAll(\PDO::FETCH_COLUMN);
    }

    public function transaction(callable $work): void
    {
        $this->db->beginTransaction();
        try {
            $work();
            $this->db->commit();
        } catch (\Throwable $error) {
            $this->db->rollBack();
            throw $error;
        }
    }

    public function close(): void
    {
        if ($this->lock !== null) {
            flock($this->lock, LOCK_UN);
            fclose($this->lock);
            $this->lock = null;
        }
    }

    /** @param list<mixed> $params */
    private function statement(string $sql, array $params): \PDOStatement
    {
        if ($this->lock === null) {
            throw new \LogicException('a fila está fechada');
        }
        $statement = $this->db->prepare($sql);
        $statement->execute($params);
        return $statement;
    }
}
