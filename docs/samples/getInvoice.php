<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

$invoice = $api->invoices->get(4120);
echo "{$invoice['invoice_code']} {$invoice['status']}: {$invoice['grand_total']} {$invoice['currency']}, paid {$invoice['paid_amount']}\n";
foreach ($invoice['items'] as $line) {
    echo "  {$line['quantity']} x {$line['name']} @ {$line['price']} = {$line['total']}\n";
}
