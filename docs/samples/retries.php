<?php
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\PartnerApi;
use Invoicing\PartnerApi\RetryInfo;

// [pt] As repetições já vêm feitas: 429, 409 em curso, 5xx e falhas de rede, no máximo 5 tentativas,
// [pt] esperando o Retry-After ou um recuo exponencial com variação aleatória.
// [en] Retries come built in: 429, 409 in flight, 5xx and network failures, at most 5 attempts,
// [en] waiting for Retry-After or an exponential backoff with jitter.
$api = new PartnerApi(
    apiKey: getenv('PARTNER_API_KEY') ?: '',
    baseUrl: getenv('PARTNER_API_URL') ?: 'https://invoicing.example.co.mz/api/v1/partner',
    maxRetries: 4,
    onRetry: function (RetryInfo $retry): void {
        printf("retry after attempt %d of %s %s in %.1f s: %s\n", $retry->attempt, $retry->method, $retry->path, $retry->delay, $retry->error->getMessage());
    },
);

// [pt] Cada tentativa reenvia os mesmos bytes com a mesma Idempotency-Key: criado uma só vez.
// [en] Every attempt resends the same bytes with the same Idempotency-Key: created once.
$customer = $api->customers->create(['name' => 'Oficina Matola Rio', 'type' => 'company']);
echo "{$customer['id']} {$customer['name']} replayed=" . var_export($api->lastResponse()?->replayed, true) . "\n";
