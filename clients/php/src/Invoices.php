<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

final class Invoices extends Collection
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, 'invoices');
    }

    /**
     * Always a draft; each line's price is a decimal string.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    public function create(array $body, ?string $idempotencyKey = null): array
    {
        return $this->write('POST', '/invoices', $body, Json::invoiceMoney(...), $idempotencyKey);
    }
}
