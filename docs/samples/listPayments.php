<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] Só recibos de facturas da empresa; só leitura.
// [en] Only receipts of the company's invoices; read only.
$page = $api->payments->list(['invoice_id' => 4120, 'sort' => 'payment_date', 'order' => 'desc']);
foreach ($page['data'] as $payment) {
    echo "{$payment['payment_code']} {$payment['payment_date']} {$payment['amount']} {$payment['payment_method']} -> {$payment['invoice']['invoice_code']}\n";
}
