<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** The same ref was enqueued before with another body: refused, nothing stored. */
final class OfflineQueueRefConflictException extends \InvalidArgumentException
{
    public function __construct(
        /** The till's reference. */
        public readonly string $ref,
        /** The local id of the entry already held for it. */
        public readonly string $localId,
    ) {
        parent::__construct(sprintf(
            'a referência %s já está na fila (entrada %s) com outro pedido: a mesma referência só se repete com o mesmo método, caminho e corpo',
            json_encode($ref, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES),
            $localId,
        ));
    }
}
