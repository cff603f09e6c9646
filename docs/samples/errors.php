<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;
use Invoicing\PartnerApi\PartnerApiException;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

try {
    // [pt] "12,50": o separador decimal é o ponto, por isso a API responde 422 validation_failed.
    // [en] "12,50": the decimal separator is the point, so the API answers 422 validation_failed.
    $api->invoices->create([
        'customer_id' => 1042,
        'invoice_date' => '2026-11-22',
        'items' => [['product_id' => 2051, 'quantity' => 1, 'price' => '12,50']],
    ]);
} catch (PartnerApiException $error) {
    // [pt] Decida pelo errorCode; a mensagem e o hint são para pessoas. Indique o requestId ao suporte.
    // [en] Branch on errorCode; the message and hint are for people. Quote the requestId to support.
    echo "{$error->status} {$error->errorCode} (request {$error->requestId})\n";
    if ($error->errorCode === 'validation_failed') {
        foreach ($error->errors ?? [] as $field => $messages) {
            echo "  {$field}: " . implode('; ', $messages) . "\n";
        }
    }
}
