<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** Reads of a collection: one page, every item, one item. */
abstract class Collection
{
    public function __construct(
        protected readonly Transport $transport,
        private readonly string $collection,
    ) {
    }

    /**
     * One page: ['data' => [...], 'pagination' => [...]]. Filters, sort, order, page and per_page as
     * the API names them (booleans are sent as true/false).
     *
     * @param array<string, mixed> $query
     * @return array{data: list<array<string, mixed>>, pagination: array<string, int>}
     */
    public function list(array $query = []): array
    {
        /** @var array{data: list<array<string, mixed>>, pagination: array<string, int>} */
        return $this->transport->call('GET', '/' . $this->collection, $query);
    }

    /**
     * Every item, page by page until current_page equals last_page: per_page items a page (default
     * 100, the most the API gives).
     *
     * @param array<string, mixed> $query
     * @return \Generator<int, array<string, mixed>>
     */
    public function listAll(array $query = []): \Generator
    {
        if (array_key_exists('page', $query)) {
            throw new \InvalidArgumentException('listAll walks every page from the first: leave page out');
        }
        $query['per_page'] ??= 100;
        for ($page = 1; ; $page++) {
            $result = $this->list([...$query, 'page' => $page]);
            foreach ($result['data'] as $item) {
                yield $item;
            }
            $pagination = $result['pagination'];
            if ($pagination['current_page'] >= $pagination['last_page'] || $result['data'] === []) {
                return;
            }
        }
    }

    /** @return array<string, mixed> */
    public function get(int|string $id): array
    {
        return $this->transport->call('GET', $this->path($id))['data'];
    }

    protected function path(int|string $id): string
    {
        return '/' . $this->collection . '/' . rawurlencode((string) $id);
    }

    /**
     * A write: the body is encoded once; every attempt resends these bytes with this key.
     *
     * @param array<string, mixed> $body
     * @param callable(list<string|int>): bool $isMoney
     * @return array<string, mixed>
     */
    protected function write(string $method, string $path, array $body, callable $isMoney, ?string $idempotencyKey): array
    {
        $encoded = Json::encode($body, $isMoney);
        return $this->transport->call($method, $path, [], $encoded, $idempotencyKey ?? Transport::newKey())['data'];
    }
}
