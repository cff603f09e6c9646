<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi;

/**
 * NUIT (Número Único de Identificação Tributária, Mozambique's tax number): 9 digits, the first the
 * kind of taxpayer, the last a check digit. The check digit follows the algorithm python-stdnum
 * publishes for `stdnum.mz.nuit`: the first eight digits weighted 8, 9, 4, 5, 6, 7, 8, 9, summed,
 * modulo 11; a remainder of 10 gives the digit 1.
 *
 * A warning aid, never proof: a NUIT that passes may still belong to nobody, or to someone else, and
 * the API accepts any text as `nuit` (it does not check it). Use it to ask a person to look again at
 * what they typed.
 */
final class Nuit
{
    private const WEIGHTS = [8, 9, 4, 5, 6, 7, 8, 9];

    /** The NUIT without the spaces, dots and dashes people write in it: "400 339 910" -> "400339910". */
    public static function compact(string $value): string
    {
        return trim(str_replace([' ', '.', '-'], '', $value));
    }

    /** The check digit of the first eight digits. */
    public static function checkDigit(string $firstEight): string
    {
        if (preg_match('/^[0-9]{8}$/D', $firstEight) !== 1) {
            throw new \InvalidArgumentException('Nuit::checkDigit takes the first 8 digits of a NUIT');
        }
        $sum = 0;
        foreach (self::WEIGHTS as $i => $weight) {
            $sum += $weight * (int) $firstEight[$i];
        }
        return '01234567891'[$sum % 11];
    }

    /** Nine digits (once compacted) whose last is the check digit of the others. */
    public static function isValid(string $value): bool
    {
        $nuit = self::compact($value);
        return preg_match('/^[0-9]{9}$/D', $nuit) === 1 && self::checkDigit(substr($nuit, 0, 8)) === $nuit[8];
    }

    /** The usual presentation in three groups: "400339910" -> "400 339 910". */
    public static function format(string $value): string
    {
        $nuit = self::compact($value);
        return substr($nuit, 0, 3) . ' ' . substr($nuit, 3, -3) . ' ' . substr($nuit, -3);
    }
}
