<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

$product = $api->products->get(2051);
echo "{$product['product_code']} {$product['name']}: {$product['price']} MZN, IVA " . ($product['tax_rate'] ?? '-') . "%, stock {$product['stock']}\n";
