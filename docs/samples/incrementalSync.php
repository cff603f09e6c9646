<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] since: a sua marca da última vez menos 5 minutos (na primeira vez, uma data antiga).
// [en] since: your mark from last time minus 5 minutes (the first time, an old date).
$since = '2000-01-01';
$page = 1;
while (true) {
    $data = $api->customers->list([
        'updated_since' => $since,
        'sort' => 'updated_at',
        'order' => 'asc',
        'per_page' => 100,
        'page' => $page,
    ])['data'];
    // [pt] Guarde cada registo pelo id (upsert): vê-lo duas vezes não faz mal.
    // [en] Store each record by id (upsert): seeing one twice does no harm.
    foreach ($data as $customer) {
        echo "{$customer['id']} {$customer['updated_at']}\n";
    }
    if (count($data) < 100) {
        break;
    }
    $last = $data[count($data) - 1]['updated_at'];
    // [pt] Avance since e volte à página 1; só uma página toda no mesmo instante pede a página seguinte.
    // [en] Move since forward and go back to page 1; only a page all at one instant asks for the next page.
    if ($last === $since) {
        $page++;
    } else {
        [$since, $page] = [$last, 1];
    }
}
