<?php

declare(strict_types=1);

// The package's classes through its own autoloader (no Composer needed), and the tests' helpers.
require __DIR__ . '/../autoload.php';
require __DIR__ . '/Server/Harness.php';
