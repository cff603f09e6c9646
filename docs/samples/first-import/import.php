<?php
// [pt] Primeira importação: clientes e produtos de um ficheiro JSON, com várias chaves de API da
// [pt] mesma empresa (pedidas ao operador), um processo e um cliente oficial por chave, cada um ao seu ritmo.
// [en] First import: customers and products from a JSON file, with several API keys of the same
// [en] company (asked of the operator), one process and one official client per key, each pacing itself.
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;
use Invoicing\PartnerApi\PartnerApiException;

$keys = array_values(array_filter(explode(',', getenv('PARTNER_API_KEYS') ?: '')));
$baseUrl = getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner';
$data = json_decode(file_get_contents(getenv('IMPORT_FILE') ?: 'import.json'), true, 512, JSON_THROW_ON_ERROR);
$rows = [];
foreach ($data['customers'] as $row) {
    $rows[] = ['customer', $row];
}
foreach ($data['products'] as $row) {
    $rows[] = ['product', $row];
}

$worker = getenv('IMPORT_WORKER');
if ($worker !== false) {
    // [pt] Um trabalhador: a sua chave e um registo em cada len(keys). A Idempotency-Key vem da
    // [pt] referência: repetir a importação (dentro de 24 horas) nunca cria duas vezes.
    // [en] One worker: its key and one record in every len(keys). The Idempotency-Key comes from
    // [en] the reference: running the import again (within 24 hours) never creates twice.
    $pauses = 0;
    $api = new PartnerApi(apiKey: $keys[(int) $worker], baseUrl: $baseUrl, onPace: function () use (&$pauses) {
        $pauses++;
    });
    $result = ['created' => ['customer' => 0, 'product' => 0], 'refused' => []];
    foreach ($rows as $index => [$kind, $row]) {
        if ($index % count($keys) !== (int) $worker) {
            continue;
        }
        $ref = $row['ref'];
        unset($row['ref']);
        try {
            $collection = $kind === 'customer' ? $api->customers : $api->products;
            $collection->create($row, "import-{$kind}-{$ref}");
            $result['created'][$kind]++;
        } catch (PartnerApiException $error) {
            // [pt] Um registo inválido fica para corrigir; o resto continua. / [en] An invalid record is kept to fix; the rest goes on.
            if ($error->errorCode !== 'validation_failed') {
                throw $error;
            }
            $result['refused'][] = "{$ref}: " . json_encode($error->errors, JSON_UNESCAPED_UNICODE);
        }
    }
    $quotas = [];
    foreach ($api->rateLimits() as $limit) {
        $quotas[$limit->name] = $limit->quota;
    }
    echo json_encode($result + ['pauses' => $pauses, 'quotas' => $quotas]), "\n";
    exit(0);
}

// [pt] O processo principal lança um trabalhador por chave e junta os resultados.
// [en] The main process starts one worker per key and gathers their results.
$started = microtime(true);
$children = [];
foreach (array_keys($keys) as $index) {
    $process = proc_open([PHP_BINARY, __FILE__], [1 => ['pipe', 'w'], 2 => STDERR], $pipes, null, getenv() + ['IMPORT_WORKER' => (string) $index]);
    $children[] = [$process, $pipes[1]];
}
$created = ['customer' => 0, 'product' => 0];
$refused = [];
$pauses = 0;
$quotas = [];
foreach ($children as [$process, $output]) {
    $line = stream_get_contents($output);
    if (proc_close($process) !== 0) {
        fwrite(STDERR, "a worker failed\n");
        exit(1);
    }
    $result = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
    $created['customer'] += $result['created']['customer'];
    $created['product'] += $result['created']['product'];
    $refused = array_merge($refused, $result['refused']);
    $pauses += $result['pauses'];
    $quotas = $result['quotas'];
}

// [pt] O ritmo que os limites permitem, com as quotas que a API anunciou (RateLimit-Policy).
// [en] The pace the limits allow, from the quotas the API announced (RateLimit-Policy).
$writes = $quotas['key-writes-minute'] ?? 0;
$company = $quotas['company-minute'] ?? 0;
$perMinute = min(count($keys) * $writes, $company);
$seconds = (int) round(microtime(true) - $started);
$total = $created['customer'] + $created['product'];
echo "imported {$total} of " . count($rows) . " (customers {$created['customer']}, products {$created['product']}), "
    . count($refused) . ' refused, with ' . count($keys) . " keys in {$seconds} s, {$pauses} pauses\n";
echo "pace: {$perMinute} writes a minute (" . count($keys) . " keys x {$writes}, company {$company}): 2000 records take about "
    . (int) ceil(2000 / $perMinute) . " min\n";
foreach ($refused as $line) {
    echo "refused {$line}\n";
}
