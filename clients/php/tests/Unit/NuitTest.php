<?php

declare(strict_types=1);

namespace Invoicing\PartnerApi\Tests\Unit;

use Invoicing\PartnerApi\Nuit;
use PHPUnit\Framework\TestCase;

/** The NUIT helper: python-stdnum's published algorithm for stdnum.mz.nuit, reimplemented. */
final class NuitTest extends TestCase
{
    public function testValidNumbersInTheUsualSpellings(): void
    {
        foreach (['400339910', '400 339 910', '400-339-910', '400.005.834', ' 400005834 '] as $value) {
            self::assertTrue(Nuit::isValid($value), $value);
        }
    }

    public function testCheckDigitWeights89456789Modulo11(): void
    {
        // 4*8 + 0*9 + 0*4 + 3*5 + 3*6 + 9*7 + 9*8 + 1*9 = 209 = 19 * 11: remainder 0.
        self::assertSame('0', Nuit::checkDigit('40033991'));
        self::assertSame('4', Nuit::checkDigit('40000583'));
        // A remainder of 10 gives the digit 1.
        $found = 0;
        for ($n = 100000; $n < 100200; $n++) {
            $digits = sprintf('%08d', $n);
            $sum = 0;
            foreach ([8, 9, 4, 5, 6, 7, 8, 9] as $i => $weight) {
                $sum += $weight * (int) $digits[$i];
            }
            if ($sum % 11 === 10) {
                $found++;
                self::assertSame('1', Nuit::checkDigit($digits));
                self::assertTrue(Nuit::isValid($digits . '1'));
            }
        }
        self::assertGreaterThan(0, $found);
    }

    public function testWrongLengthCharactersOrCheckDigit(): void
    {
        foreach (['12345', '4003399100', '40033991A', '400339911', '', "40033991\n0"] as $value) {
            self::assertFalse(Nuit::isValid($value), $value);
        }
        $this->expectException(\InvalidArgumentException::class);
        Nuit::checkDigit('1234567');
    }

    public function testCompactAndFormat(): void
    {
        self::assertSame('400339910', Nuit::compact(' 400 339-910. '));
        self::assertSame('400 339 910', Nuit::format('400339910'));
        self::assertSame('400 339 910', Nuit::format('400-339-910'));
    }
}
