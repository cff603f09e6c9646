<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** Receipts: read only. */
final class Payments extends Collection
{
    public function __construct(Transport $transport)
    {
        parent::__construct($transport, 'payments');
    }
}
