<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/** Another process holds the offline queue's store. */
final class OfflineQueueLockedException extends \RuntimeException
{
}
