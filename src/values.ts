// Small facts about values that several layers check the same way.

/** Largest PostgreSQL `integer`: every id, and integer columns such as reorder_level. */
export const MAX_INT32 = 2_147_483_647;

/** Whether a value can be the id of a row (a positive PostgreSQL `integer`). */
export function isDatabaseId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_INT32;
}

/**
 * The one reader of an id written as text (a path `{id}`, a command-line argument): plain decimal
 * digits without a sign, a leading zero or spaces, naming a positive PostgreSQL `integer`; else null.
 */
export function idFromText(text: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return null;
  const id = Number(text);
  return id <= MAX_INT32 ? id : null;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether text is a date `YYYY-MM-DD` that exists in the (proleptic Gregorian) calendar, years
 * 0001 to 9999 alike (no 2026-02-30, no year 0000, which PostgreSQL does not have). Counted by
 * the calendar's rules, not through Date.UTC, which reads years 0 to 99 as 1900 to 1999.
 */
export function isCalendarDate(text: string): boolean {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}
