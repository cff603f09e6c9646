<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] Dinheiro entra como texto decimal e viaja como número JSON exacto (um float é recusado).
// [en] Money goes in as decimal text and travels as an exact JSON number (a float is refused).
$product = $api->products->create([
    'name' => 'Instalação eléctrica',
    'type' => 'SERVICES',
    'inventory' => 'NON_INVENTORY',
    'price' => '1250.50',
    'sku' => 'SRV-ELEC',
]);
echo "{$product['id']} {$product['product_code']} {$product['name']} {$product['price']}\n";
