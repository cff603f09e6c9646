<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] O PUT leva o corpo inteiro: name, type, inventory e price são obrigatórios.
// [en] PUT takes the whole body: name, type, inventory and price are required.
$product = $api->products->update(2051, [
    'name' => 'Cimento Portland 50 kg',
    'type' => 'GOODS',
    'inventory' => 'INVENTORY',
    'price' => '675.00',
    'sku' => 'CIM-50',
]);
echo "{$product['product_code']} {$product['name']} {$product['price']} {$product['updated_at']}\n";
