<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] Só os campos enviados mudam; null apaga um campo opcional.
// [en] Only the fields sent change; null clears an optional field.
$customer = $api->customers->update(1042, [
    'phone' => '+258 84 123 4567',
    'address' => 'Av. Samora Machel 210, Xai-Xai',
]);
echo "{$customer['name']} | {$customer['phone']} | {$customer['address']}\n";
