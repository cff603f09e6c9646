<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * Verifying the service's webhook deliveries (Standard Webhooks, https://www.standardwebhooks.com).
 *
 * - The signed content is "{webhook-id}.{webhook-timestamp}.{raw body}", HMAC-SHA256 keyed with the
 *   base64 bytes of the secret after "whsec_".
 * - webhook-signature holds one or more "v1,<base64>" entries separated by spaces (after a secret
 *   rotation the service signs with the new and the old secret for 24 hours): one match is enough.
 * - You may pass several secrets (yours, during your own switch-over): one match with any is enough.
 * - A timestamp more than $tolerance seconds (default 300) away from your clock is refused, so an
 *   old delivery replayed by someone else is refused.
 */
final class Webhook
{
    public const DEFAULT_TOLERANCE = 300;
    private const SECRET_PREFIX = 'whsec_';

    /**
     * Checks a delivery and returns its event (id, type, created_at, data).
     *
     * @param string $payload the raw body exactly as received (file_get_contents('php://input'))
     * @param array<string, string|list<string>> $headers getallheaders(), $_SERVER, or a PSR-7 request's getHeaders()
     * @param string|list<string> $secret your whsec_... secret, or several
     * @return array<string, mixed>
     * @throws WebhookVerificationException when the delivery must not be trusted
     */
    public static function verify(
        string $payload,
        array $headers,
        string|array $secret,
        int $tolerance = self::DEFAULT_TOLERANCE,
        ?int $now = null,
    ): array {
        $secrets = is_string($secret) ? [$secret] : array_values($secret);
        if ($secrets === []) {
            throw new \InvalidArgumentException('no webhook secret given');
        }
        $keys = array_map(self::key(...), $secrets);
        $normalized = self::headers($headers);
        $id = $normalized['webhook-id'] ?? '';
        $timestamp = $normalized['webhook-timestamp'] ?? '';
        $signatures = $normalized['webhook-signature'] ?? '';
        if ($id === '' || $timestamp === '' || $signatures === '') {
            throw new WebhookVerificationException('missing_header', 'webhook-id, webhook-timestamp and webhook-signature are required');
        }
        if (preg_match('/^[0-9]+$/D', $timestamp) !== 1) {
            throw new WebhookVerificationException('timestamp', 'webhook-timestamp is not a number');
        }
        if (abs(($now ?? time()) - (int) $timestamp) > $tolerance) {
            throw new WebhookVerificationException('timestamp', "webhook-timestamp is more than {$tolerance} s away from now");
        }
        $signed = $id . '.' . $timestamp . '.' . $payload;
        $matched = false;
        foreach ($keys as $key) {
            $expected = hash_hmac('sha256', $signed, $key, true);
            foreach (explode(' ', $signatures) as $entry) {
                if (!str_starts_with($entry, 'v1,')) {
                    continue;
                }
                $candidate = base64_decode(substr($entry, 3), true);
                if ($candidate !== false && hash_equals($expected, $candidate)) {
                    $matched = true;
                }
            }
        }
        if (!$matched) {
            throw new WebhookVerificationException('signature', 'no webhook-signature matches the secret');
        }
        try {
            $event = json_decode($payload, true, 512, JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
        } catch (\JsonException $error) {
            throw new WebhookVerificationException('payload', 'the signed body is not JSON');
        }
        if (!is_array($event)) {
            throw new WebhookVerificationException('payload', 'the signed body is not a JSON object');
        }
        return $event;
    }

    private static function key(string $secret): string
    {
        $encoded = str_starts_with($secret, self::SECRET_PREFIX) ? substr($secret, strlen(self::SECRET_PREFIX)) : $secret;
        $key = base64_decode($encoded, true);
        if ($key === false || $key === '') {
            throw new \InvalidArgumentException('a webhook secret is whsec_ followed by base64');
        }
        return $key;
    }

    /**
     * Header names lower-cased with dashes ("HTTP_WEBHOOK_ID" of $_SERVER -> "webhook-id"); several
     * values of one header joined with spaces.
     *
     * @param array<string, string|list<string>> $headers
     * @return array<string, string>
     */
    private static function headers(array $headers): array
    {
        $normalized = [];
        foreach ($headers as $name => $value) {
            $name = strtolower((string) $name);
            if (str_starts_with($name, 'http_')) {
                $name = substr($name, 5);
            }
            $name = str_replace('_', '-', $name);
            $normalized[$name] = is_array($value) ? implode(' ', $value) : (string) $value;
        }
        return $normalized;
    }
}
