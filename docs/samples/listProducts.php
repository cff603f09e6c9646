<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] Preços são texto decimal ("650.00"): nunca os converta para float.
// [en] Prices are decimal text ("650.00"): never turn them into floats.
$page = $api->products->list(['is_for_sale' => true, 'sort' => 'name', 'per_page' => 50]);
foreach ($page['data'] as $product) {
    echo "{$product['product_code']} {$product['name']} " . ($product['price'] ?? '-') . ' (stock ' . ($product['stock'] ?? '-') . ")\n";
}
