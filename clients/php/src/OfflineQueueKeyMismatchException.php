<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** The offline queue's store was made with another API key. */
final class OfflineQueueKeyMismatchException extends \RuntimeException
{
}
