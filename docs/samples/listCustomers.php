<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] Uma página; listAll() percorre todas.
// [en] One page; listAll() walks them all.
$page = $api->customers->list(['search' => 'xai-xai', 'sort' => 'name', 'per_page' => 25]);
foreach ($page['data'] as $customer) {
    echo "{$customer['id']} {$customer['name']} {$customer['nuit']}\n";
}
['total' => $total, 'current_page' => $current, 'last_page' => $last] = $page['pagination'];
echo "{$total} ({$current}/{$last})\n";
