<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] listAll() pede 100 de cada vez e pára quando current_page iguala last_page.
// [en] listAll() asks for 100 at a time and stops when current_page equals last_page.
foreach ($api->customers->listAll(['sort' => 'created_at', 'order' => 'asc']) as $customer) {
    echo "{$customer['id']} {$customer['name']}\n";
}
