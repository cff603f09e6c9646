<?php
// [pt] webhooks.php, no seu servidor web (por exemplo https://loja.example.co.mz/webhooks.php).
// [en] webhooks.php, on your web server (for example https://shop.example.co.mz/webhooks.php).
require __DIR__ . '/vendor/autoload.php';

use Invoicing\PartnerApi\Webhook;
use Invoicing\PartnerApi\WebhookVerificationException;

try {
    // [pt] Sobre o corpo tal como chegou, antes de qualquer json_decode.
    // [en] On the raw body, before any json_decode.
    $event = Webhook::verify(file_get_contents('php://input'), getallheaders(), getenv('INVOICING_WEBHOOK_SECRET') ?: '');
} catch (WebhookVerificationException) {
    http_response_code(400);
    exit;
}
http_response_code(204);

// [pt] Entrega "pelo menos uma vez": ignore um id já tratado. Aqui um ficheiro por id, criado de forma
// [pt] atómica; em produção, uma tabela com o id como chave única.
// [en] Delivery is "at least once": ignore an id already handled. Here one file per id, created
// [en] atomically; in production, a table with the id as a unique key.
$processed = __DIR__ . '/processed-events';
@mkdir($processed, 0o700);
if (@fopen($processed . '/' . preg_replace('/[^A-Za-z0-9_]/', '', $event['id']), 'x') === false) {
    exit;
}
// [pt] O eco de uma escrita sua: a cause traz a Idempotency-Key que enviou.
// [en] The echo of your own write: the cause carries the Idempotency-Key you sent.
$myKeys = []; // [pt] as Idempotency-Key das suas escritas / [en] the Idempotency-Keys of your writes
$cause = $event['cause'] ?? null;
if (($cause['kind'] ?? null) === 'api_key' && in_array($cause['idempotency_key'], $myKeys, true)) {
    exit;
}
error_log("{$event['type']} {$event['id']} {$event['created_at']}");
