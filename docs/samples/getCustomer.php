<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

$customer = $api->customers->get(1042);
echo "{$customer['name']} | NUIT {$customer['nuit']} | {$customer['email']} | {$customer['updated_at']}\n";
