<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] O cliente gera a Idempotency-Key e repete-a, com os mesmos bytes, em cada nova tentativa.
// [en] The client makes the Idempotency-Key and resends it, with the same bytes, on every retry.
$customer = $api->customers->create([
    'name' => 'Talho Polana, Lda',
    'type' => 'company',
    'nuit' => '400339910',
    'email' => 'compras@talhopolana.co.mz',
    'phone' => '+258 84 555 0101',
]);
echo "{$customer['id']} {$customer['name']} {$customer['created_at']}\n";
