<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;

$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
);

// [pt] Uma chave por operação, guardada com ela: aqui, o id do registo no seu próprio sistema.
// [en] One key per operation, stored with it: here, the id of the record in your own system.
$key = 'crm-customer-7781';
$body = ['name' => 'Padaria Costa do Sol', 'type' => 'company'];
$first = $api->customers->create($body, $key);
// [pt] A mesma operação outra vez (por exemplo depois de um reinício): a resposta guardada, nada novo.
// [en] The same operation again (say after a restart): the stored answer, nothing new.
$again = $api->customers->create($body, $key);
echo "{$first['id']} {$again['id']} replayed=" . var_export($api->lastResponse()?->replayed, true) . "\n";
