<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * Bodies of queued writes. ['$local' => id] stands for the id the server will give an entry still
 * queued; it is encoded as {"$local":"<id>"}, and that text can only be such an object (inside a JSON
 * string every quote is escaped), so it is replaced in the bytes themselves, once, before the first
 * send: the rest of the body keeps its exact bytes.
 *
 * @internal
 */
final class OfflineBody
{
    private const LOCAL_ID = '/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/D';
    private const LOCAL_REF = '/\{"\$local":"([0-9a-f-]{36})"\}/';
    /** The writes a queue takes, with the money fields of each (Json's rules). */
    private const ROUTES = [
        ['POST', '#^/customers$#D', 'noMoney'],
        ['POST', '#^/products$#D', 'productMoney'],
        ['POST', '#^/invoices$#D', 'invoiceMoney'],
        ['PUT', '#^/customers/[1-9][0-9]*$#D', 'noMoney'],
        ['PUT', '#^/products/[1-9][0-9]*$#D', 'productMoney'],
    ];

    /**
     * The body's JSON text (money as number literals) and the local ids it names.
     *
     * @param array<string, mixed> $body
     * @return array{0: string, 1: list<string>}
     */
    public static function encode(string $method, string $path, array $body): array
    {
        $money = null;
        foreach (self::ROUTES as [$routeMethod, $pattern, $isMoney]) {
            $money = $routeMethod === $method && preg_match($pattern, $path) === 1 ? $isMoney : $money;
        }
        if ($money === null) {
            throw new \InvalidArgumentException("{$method} {$path}: a fila aceita POST /customers, /products, /invoices e PUT /customers/{id}, /products/{id}");
        }
        $found = [];
        self::localsOf($body, '', $found);
        return [Json::encode($body, [Json::class, $money]), $found];
    }

    /** @param array<string, int> $ids the server's id of each local id */
    public static function putIds(string $text, array $ids): string
    {
        return (string) preg_replace_callback(self::LOCAL_REF, static fn (array $m): string => (string) $ids[$m[1]], $text);
    }

    /** @param list<string> $found */
    private static function localsOf(mixed $value, string $where, array &$found): void
    {
        if (is_array($value) && array_key_exists('$local', $value)) {
            $local = $value['$local'];
            if (count($value) !== 1 || !is_string($local) || preg_match(self::LOCAL_ID, $local) !== 1) {
                throw new \InvalidArgumentException(($where === '' ? 'body' : $where) . ": ['\$local' => id] leva só um id local devolvido por enqueue");
            }
            $found = array_values(array_unique([...$found, $local]));
        } elseif (is_array($value)) {
            foreach ($value as $key => $field) {
                self::localsOf($field, $where === '' ? (string) $key : "{$where}.{$key}", $found);
            }
        }
    }
}
