<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * After the 24 hours an Idempotency-Key lives on the server, resending an entry with it could create
 * the record a second time. So an entry sent before with a key that may have expired is first looked
 * for, through the client's lists, among the records changed since that first send: an invoice by
 * its reference, a product by its sku, a customer by NUIT, e-mail or phone.
 *
 * @internal
 */
final class OfflineLookup
{
    public function __construct(private readonly PartnerApi $api)
    {
    }

    /** The id of the record a POST may have created, null, or why it cannot be told (a string). */
    public function find(string $path, string $body, float $since): int|string|null
    {
        $data = json_decode($body, true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
        $query = ['updated_since' => self::iso($since)];
        if ($path === '/invoices') {
            $reference = self::text($data['reference'] ?? null);
            return $reference === null ? 'a factura não tem reference'
                : $this->scan($this->api->invoices, $query, static fn (array $i): bool => ($i['reference'] ?? null) === $reference);
        }
        if ($path === '/products') {
            $sku = self::text($data['sku'] ?? null);
            return $sku === null ? 'o produto não tem sku'
                : $this->scan($this->api->products, $query + ['search' => $sku], static fn (array $p): bool => ($p['sku'] ?? null) === $sku);
        }
        $nuit = self::digits($data['nuit'] ?? null);
        $email = strtolower(self::text($data['email'] ?? null) ?? '');
        $phone = self::digits($data['phone'] ?? null);
        $search = $nuit !== '' ? $nuit : ($email !== '' ? $email : self::text($data['phone'] ?? null));
        if ($search === null) {
            return 'o cliente não tem NUIT, e-mail nem telefone';
        }
        return $this->scan($this->api->customers, $query + ['search' => $search], static fn (array $c): bool => match (true) {
            $nuit !== '' => self::digits($c['nuit'] ?? null) === $nuit,
            $email !== '' => strtolower((string) ($c['email'] ?? '')) === $email,
            default => $phone !== '' && self::digits($c['phone'] ?? null) === $phone,
        });
    }

    public static function iso(float $seconds): string
    {
        return gmdate('Y-m-d\TH:i:s', (int) floor($seconds)) . sprintf('.%03dZ', (int) (fmod($seconds, 1.0) * 1000));
    }

    /** @param array<string, mixed> $query */
    private function scan(Collection $collection, array $query, callable $matches): ?int
    {
        foreach ($collection->listAll($query + ['sort' => 'updated_at', 'order' => 'asc']) as $item) {
            if ($matches($item)) {
                return (int) $item['id'];
            }
        }
        return null;
    }

    private static function text(mixed $value): ?string
    {
        return is_string($value) && trim($value) !== '' ? trim($value) : null;
    }

    private static function digits(mixed $value): string
    {
        return is_string($value) ? (string) preg_replace('/[^0-9]/', '', $value) : '';
    }
}
