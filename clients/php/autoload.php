<?php

declare(strict_types=1);

// For projects without Composer: `require 'path/to/partner-api/autoload.php';` loads the classes of
// the Invoicing\PartnerApi namespace from src/ (what Composer's PSR-4 autoloader does).
spl_autoload_register(static function (string $class): void {
    $prefix = 'Invoicing\\PartnerApi\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
