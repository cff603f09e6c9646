<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Server;

use PHPUnit\Framework\TestCase;

/** The README's example, run as it is (a separate PHP process) against the real server. */
final class ReadmeTest extends TestCase
{
    private static function example(): string
    {
        $readme = (string) file_get_contents(__DIR__ . '/../../README.md');
        if (preg_match('/```php\n(.*?)```/s', $readme, $match) !== 1) {
            self::fail('the README has no ```php example');
        }
        return $match[1];
    }

    public function testTheExampleRuns(): void
    {
        $tenant = Harness::tenant('Exemplo do README PHP, Lda');
        $work = sys_get_temp_dir() . '/partner-api-php-readme-' . bin2hex(random_bytes(6));
        mkdir($work . '/vendor', 0o700, true);
        try {
            // What `composer require` would give: vendor/autoload.php loading the package.
            file_put_contents($work . '/vendor/autoload.php', "<?php\nrequire " . var_export(realpath(__DIR__ . '/../../autoload.php'), true) . ";\n");
            file_put_contents($work . '/example.php', self::example());
            $env = ['PARTNER_API_KEY' => $tenant['key'], 'PARTNER_API_URL' => Harness::apiUrl(), 'PATH' => (string) getenv('PATH')];
            $process = proc_open([PHP_BINARY, $work . '/example.php'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $work, $env);
            self::assertIsResource($process);
            $stdout = stream_get_contents($pipes[1]);
            $stderr = stream_get_contents($pipes[2]);
            $code = proc_close($process);
        } finally {
            @unlink($work . '/vendor/autoload.php');
            @unlink($work . '/example.php');
            @rmdir($work . '/vendor');
            @rmdir($work);
        }
        self::assertSame(0, $code, $stdout . $stderr);
        $visible = Harness::client($tenant['key'])->customers->list()['pagination']['total'];
        $lines = explode("\n", trim((string) $stdout));
        self::assertCount(5, $lines, (string) $stdout);
        self::assertSame('empresa / company: Exemplo do README PHP, Lda (live)', $lines[0]);
        self::assertMatchesRegularExpression('/^DRAFT-\S{8} draft total 2501\.00 MZN$/', $lines[1]);
        self::assertSame("clientes / customers: {$visible}", $lines[2]);
        self::assertMatchesRegularExpression('/^não encontrada \/ not found \(pedido \/ request req_[0-9a-f]+\)$/', $lines[3]);
        self::assertMatchesRegularExpression('/^pedidos restantes \/ requests left: \d+$/', $lines[4]);
    }
}
