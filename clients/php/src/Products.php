<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

final class Products extends Collection
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, 'products');
    }

    /**
     * price and pos_price are decimal strings ("1250.50"), never floats.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public function create(array $body, ?string $idempotencyKey = null): array
    {
        return $this->write('POST', '/products', $body, Json::productMoney(...), $idempotencyKey);
    }

    /**
     * Needs name, type, inventory and price; optional fields left out keep their value, null clears them.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public function update(int|string $id, array $body, ?string $idempotencyKey = null): array
    {
        return $this->write('PUT', $this->path($id), $body, Json::productMoney(...), $idempotencyKey);
    }
}
