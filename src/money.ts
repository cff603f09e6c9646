// Money, the one place: exact decimals (decimal.js, never binary floats), numeric(18,2) in the
// database, two-place decimal text in JSON. Every parse, limit and format of an amount is here;
// src/invoices/totals.ts keeps only the arithmetic of a draft's totals.
import { Decimal as BaseDecimal } from 'decimal.js';

/**
 * Enough significant digits that no product of a quantity (18,4) and a price (18,2) is rounded
 * before an explicit round2; ROUND_HALF_UP in decimal.js is half away from zero.
 */
export const Decimal = BaseDecimal.clone({ precision: 64, rounding: BaseDecimal.ROUND_HALF_UP });
export type Decimal = InstanceType<typeof Decimal>;
export type DecimalValue = string | number | Decimal;

/** numeric(18,2) holds 16 integer digits: every amount must stay below 10^16. */
export const MONEY_LIMIT = new Decimal('1e16');

/** Half away from zero, to 2 places: 49.995 -> 50.00, -2.345 -> -2.35. */
export function round2(value: DecimalValue): Decimal {
  return new Decimal(value).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/** An amount as the API shows it and the database stores it: two places, e.g. "1250.00". */
export function money(value: DecimalValue): string {
  return new Decimal(value).toFixed(2, Decimal.ROUND_HALF_UP);
}

/** numeric(18,2) text as PostgreSQL writes it ("1250.00", never "-0.00"): already the API's form. */
const STORED_MONEY = /^(?!-0\.00$)-?(?:0|[1-9][0-9]*)\.[0-9]{2}$/;

/**
 * A nullable numeric column as the API shows it; one in its stored form (every read of a list)
 * is passed on without decimal arithmetic.
 */
export function formatMoney(value: string | null): string | null {
  if (value === null) return null;
  return STORED_MONEY.test(value) ? value : money(value);
}

const LITERAL = /^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/**
 * Decimal places of a JSON number literal, by its value and from its text alone (no decimal or
 * binary arithmetic, so no exponent is too large): "1.005" -> 3, "4.3500" -> 2, "1e-7" -> 7,
 * "1.5e3" -> 0, "0.000" -> 0. NaN for text that is not a JSON number.
 */
export function decimalPlacesOf(literal: string): number {
  const match = LITERAL.exec(literal);
  if (!match) return Number.NaN;
  const fraction = match[2] ?? '';
  // Trailing zeros counted by hand: /0+$/ is quadratic on a long run of zeros (a 1 MiB body).
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === ZERO_CHAR) end--;
  if (end === 0 && /^0+$/.test(match[1] ?? '0')) return 0;
  return Math.max(0, end - Number(match[3] ?? 0));
}

const ZERO_CHAR = 0x30;

/** A JSON number literal as an exact decimal ("-0" is 0). */
export function decimalOfJson(literal: string): Decimal {
  const value = new Decimal(literal);
  return value.isZero() ? new Decimal(0) : value;
}

export const TOO_MANY_MONEY_DECIMALS = 'deve ter no máximo 2 casas decimais';
export const MONEY_TOO_LARGE = `deve ser menor que ${MONEY_LIMIT.toFixed(0)}`;

/**
 * A JSON number of a request body, by the digits it was written with (src/json-numbers.ts), as
 * exact money text ("12.50"), or why it cannot be one: more than 2 decimals are refused, never
 * rounded; so is anything numeric(18,2) cannot hold.
 */
export function moneyFromJson(literal: string): string | { problem: string } {
  if (!(decimalPlacesOf(literal) <= 2)) return { problem: TOO_MANY_MONEY_DECIMALS };
  const amount = decimalOfJson(literal);
  if (amount.abs().gte(MONEY_LIMIT)) return { problem: MONEY_TOO_LARGE };
  return money(amount);
}

/** Why a text is not an amount of money (the operator's tools tell it in their language). */
export type MoneyTextProblem = 'form' | 'not_positive' | 'too_large';

/**
 * Operator-typed text ("1500", "1500.5") as a positive amount, or why it is not one. No
 * exponents or signs: what the operator typed is what gets stored.
 */
export function moneyFromText(raw: string): string | { problem: MoneyTextProblem } {
  const text = raw.trim();
  if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(text)) return { problem: 'form' };
  const amount = new Decimal(text);
  if (amount.lte(0)) return { problem: 'not_positive' };
  if (amount.gte(MONEY_LIMIT)) return { problem: 'too_large' };
  return money(amount);
}
