<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * Request bodies, encoded once per call: a retry resends these very bytes.
 *
 * Money goes in as decimal strings ("1250.50") and the API takes it as JSON numbers: a decimal
 * string at a money field is written as the number literal itself, digit for digit, so an amount
 * never passes through a binary float (json_encode would write a PHP float such as 0.1 with
 * whatever serialize_precision says). A float at a money field is refused; elsewhere (quantities,
 * rates) a float is written in its shortest form. A string at a money field that is not a plain
 * decimal ("12,50") is sent as a string, and the API answers 422 validation_failed naming the field.
 * Lists are JSON arrays, other arrays and objects JSON objects; an empty body is `{}`.
 */
final class Json
{
    private const DECIMAL = '/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/D';
    private const FLAGS = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR;

    /**
     * @param callable(list<string|int>): bool $isMoney
     */
    public static function encode(mixed $value, callable $isMoney): string
    {
        if ($value === []) {
            return '{}';
        }
        return self::value($value, [], $isMoney);
    }

    /** Money paths of a product body: price and pos_price. */
    public static function productMoney(array $path): bool
    {
        return count($path) === 1 && ($path[0] === 'price' || $path[0] === 'pos_price');
    }

    /** Money paths of an invoice body: each line's price. */
    public static function invoiceMoney(array $path): bool
    {
        return count($path) === 3 && $path[0] === 'items' && is_int($path[1]) && $path[2] === 'price';
    }

    public static function noMoney(array $path): bool
    {
        return false;
    }

    /**
     * @param list<string|int> $path
     */
    private static function value(mixed $value, array $path, callable $isMoney): string
    {
        if ($value === null) {
            return 'null';
        }
        if (is_bool($value)) {
            return $value ? 'true' : 'false';
        }
        if (is_int($value)) {
            return (string) $value;
        }
        if (is_float($value)) {
            if ($isMoney($path)) {
                throw new \InvalidArgumentException(
                    self::where($path) . ": money must be a decimal string such as '12.50', never a float",
                );
            }
            if (!is_finite($value)) {
                throw new \InvalidArgumentException(self::where($path) . ': not a JSON number');
            }
            $precision = ini_get('serialize_precision');
            ini_set('serialize_precision', '-1');
            try {
                return json_encode($value, self::FLAGS);
            } finally {
                ini_set('serialize_precision', $precision === false ? '-1' : $precision);
            }
        }
        if (is_string($value)) {
            if ($isMoney($path) && preg_match(self::DECIMAL, $value) === 1) {
                return $value;
            }
            return self::string($value, $path);
        }
        if ($value instanceof \JsonSerializable) {
            return self::value($value->jsonSerialize(), $path, $isMoney);
        }
        if ($value instanceof \stdClass) {
            return self::object(get_object_vars($value), $path, $isMoney);
        }
        if (is_array($value)) {
            if (array_is_list($value)) {
                $items = [];
                foreach ($value as $index => $item) {
                    $items[] = self::value($item, [...$path, $index], $isMoney);
                }
                return '[' . implode(',', $items) . ']';
            }
            return self::object($value, $path, $isMoney);
        }
        throw new \InvalidArgumentException(self::where($path) . ': ' . get_debug_type($value) . ' cannot be sent as JSON');
    }

    /**
     * @param array<array-key, mixed> $fields
     * @param list<string|int> $path
     */
    private static function object(array $fields, array $path, callable $isMoney): string
    {
        $encoded = [];
        foreach ($fields as $key => $field) {
            $key = (string) $key;
            $encoded[] = self::string($key, $path) . ':' . self::value($field, [...$path, $key], $isMoney);
        }
        return '{' . implode(',', $encoded) . '}';
    }

    /** @param list<string|int> $path */
    private static function string(string $text, array $path): string
    {
        try {
            return json_encode($text, self::FLAGS);
        } catch (\JsonException $error) {
            throw new \InvalidArgumentException(self::where($path) . ': ' . $error->getMessage(), 0, $error);
        }
    }

    /** @param list<string|int> $path */
    private static function where(array $path): string
    {
        return $path === [] ? 'body' : implode('.', $path);
    }
}
