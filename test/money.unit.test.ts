// src/money.ts: the one place where amounts are rounded, parsed, limited and formatted.
import { describe, expect, it } from 'vitest';
import {
  decimalPlacesOf,
  formatMoney,
  MONEY_TOO_LARGE,
  money,
  moneyFromJson,
  moneyFromText,
  round2,
  TOO_MANY_MONEY_DECIMALS,
} from '../src/money.js';

describe('money: rounding and places', () => {
  it('rounds half away from zero, exactly (never binary floats)', () => {
    expect(round2('49.995').toFixed(2)).toBe('50.00');
    expect(round2('0.125').toFixed(2)).toBe('0.13'); // banker's rounding would give 0.12
    expect(round2('1.005').toFixed(2)).toBe('1.01'); // (1.005).toFixed(2) === '1.00' in floats
    expect(round2('1.025').toFixed(2)).toBe('1.03');
    expect(round2('2.675').toFixed(2)).toBe('2.68');
    expect(round2('-2.345').toFixed(2)).toBe('-2.35');
    expect(round2('-0.005').toFixed(2)).toBe('-0.01');
    expect(round2('1.0049999').toFixed(2)).toBe('1.00');
    expect(money('1250')).toBe('1250.00');
    expect(money(0)).toBe('0.00');
  });

  it('counts the decimal places a JSON number was written with', () => {
    expect(decimalPlacesOf('10.05')).toBe(2);
    expect(decimalPlacesOf('10.050')).toBe(2);
    expect(decimalPlacesOf('10.001')).toBe(3);
    expect(decimalPlacesOf('1e-7')).toBe(7);
    expect(decimalPlacesOf('1E3')).toBe(0);
    expect(decimalPlacesOf('0.00001')).toBe(5);
  });

  it("goal 2 of issue 38: counts places by the literal's own digits, whatever they are", () => {
    expect(decimalPlacesOf('4.350000000000000001')).toBe(18);
    expect(decimalPlacesOf('99999999999999.99')).toBe(2);
    expect(decimalPlacesOf('1.25e-1')).toBe(3);
    expect(decimalPlacesOf('125e-2')).toBe(2);
    expect(decimalPlacesOf('0.000e-9')).toBe(0);
    expect(decimalPlacesOf('-0.10')).toBe(1);
    expect(decimalPlacesOf('1e-99999999999999999999')).toBeGreaterThan(2);
    expect(decimalPlacesOf('1.5e99999999999999999999')).toBe(0);
    expect(decimalPlacesOf('abc')).toBeNaN();
    // As long as a 1 MiB body allows, in one pass (a trailing-zeros regex was quadratic here).
    expect(decimalPlacesOf(`0.${'0'.repeat(1_000_000)}1`)).toBe(1_000_001);
    expect(decimalPlacesOf(`1.${'0'.repeat(1_000_000)}`)).toBe(0);
  });
});

describe('money: parsing', () => {
  it('takes a JSON number as exact text, refusing (never rounding) a third decimal', () => {
    expect(moneyFromJson('12.5')).toBe('12.50');
    expect(moneyFromJson(String(0.1 + 0.2))).toEqual({ problem: TOO_MANY_MONEY_DECIMALS });
    expect(moneyFromJson('1e16')).toEqual({ problem: MONEY_TOO_LARGE });
    expect(moneyFromJson('9999999999999998')).toBe('9999999999999998.00');
    expect(moneyFromJson('99999999999999.99')).toBe('99999999999999.99');
    expect(moneyFromJson('9007199254740993')).toBe('9007199254740993.00');
    expect(moneyFromJson('9999999999999999.99')).toBe('9999999999999999.99');
    expect(moneyFromJson('4.350000000000000001')).toEqual({ problem: TOO_MANY_MONEY_DECIMALS });
    expect(moneyFromJson('-0')).toBe('0.00');
  });

  it('takes operator text: positive, at most 2 decimals, no exponents or signs', () => {
    expect(moneyFromText(' 1500 ')).toBe('1500.00');
    expect(moneyFromText('1500.5')).toBe('1500.50');
    for (const bad of ['1e3', '-5', '0', '0.00', '1.005', 'abc', '']) {
      expect(moneyFromText(bad), bad).toHaveProperty('problem');
    }
    expect(moneyFromText('10000000000000000')).toEqual({ problem: 'too_large' });
  });

  it('formats a nullable numeric column with two places', () => {
    expect(formatMoney('1250.5')).toBe('1250.50');
    expect(formatMoney(null)).toBeNull();
  });
});
