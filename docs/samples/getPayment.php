<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

$payment = $api->payments->get(2207);
echo "{$payment['payment_code']}: {$payment['amount']} on {$payment['payment_date']} for {$payment['invoice']['invoice_code']}\n";
