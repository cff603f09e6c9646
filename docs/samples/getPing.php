<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

// [pt] A chave e o endereço vêm do ambiente: nunca escreva a chave no código.
// [en] The key and the address come from the environment: never write the key in your code.
$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

$me = $api->ping();
echo "{$me['tenant_name']} ({$me['mode']}): " . implode(', ', $me['scopes']) . "\n";
