<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] Nas listas as facturas vêm sem linhas (items); a leitura individual traz-as.
// [en] Lists carry invoices without their lines (items); the single read has them.
$page = $api->invoices->list(['customer_id' => 1042, 'status' => 'partially_paid', 'sort' => 'due_date', 'order' => 'asc']);
foreach ($page['data'] as $invoice) {
    echo "{$invoice['invoice_code']} {$invoice['status']} {$invoice['grand_total']} {$invoice['currency']}, due {$invoice['due_date']}, open {$invoice['remaining_amount']}\n";
}
