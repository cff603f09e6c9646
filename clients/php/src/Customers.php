<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

final class Customers extends Collection
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, 'customers');
    }

    /**
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public function create(array $body, ?string $idempotencyKey = null): array
    {
        return $this->write('POST', '/customers', $body, Json::noMoney(...), $idempotencyKey);
    }

    /**
     * Changes only the fields sent.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public function update(int|string $id, array $body, ?string $idempotencyKey = null): array
    {
        return $this->write('PUT', $this->path($id), $body, Json::noMoney(...), $idempotencyKey);
    }
}
