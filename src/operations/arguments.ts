// The readers of the three kinds of argument every command shares: ids, durations and moments
// (times). One grammar and one message each, whichever command reads them (`--since` of `audit`,
// `requests list` and `webhooks resend` alike). Arguments arrive raw: the command line's strings,
// or the same values as JSON over the admin socket. A value of the wrong form is an ArgumentError,
// which every edge reports the same way (a usage error: exit status 2). The other readers, and the
// shape of an operation, are in src/operations/define.ts.
import { type Column, gte, type SQL, sql } from 'drizzle-orm';
import type { Message } from '../i18n/message.js';
import { idFromText, isCalendarDate } from '../values.js';
import { ArgumentError } from './errors.js';

/** Raw arguments: values by name (`company`, `since`), as command-line text or JSON. */
export type RawArgs = Record<string, unknown>;

/** A number given as JSON reads like its text on the command line. */
export function textOf(value: unknown): unknown {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
}

// ---- ids: every id an operator gives (companies, keys, invoices, endpoints) ----

/** What an argument is called in a refusal: its name as typed (`company`), or a catalog label. */
export type ArgumentLabel = string | Message;

export function idArg(raw: RawArgs, key: string, label: ArgumentLabel = key): number {
  const text = textOf(raw[key]);
  const id = typeof text === 'string' ? idFromText(text.trim()) : null;
  if (id === null) {
    throw new ArgumentError({
      key: text === undefined || text === '' ? 'arg.required' : 'arg.not_an_id',
      params: { name: label },
    });
  }
  return id;
}

export function optionalId(raw: RawArgs, key: string, label: ArgumentLabel = key): number | undefined {
  return raw[key] === undefined ? undefined : idArg(raw, key, label);
}

/** `--company ID`; whether the company exists is `requireCompany`'s to say, when the operation runs. */
export function companyArg(raw: RawArgs): number {
  return idArg(raw, 'company');
}

export function optionalCompany(raw: RawArgs): number | undefined {
  return optionalId(raw, 'company');
}

// ---- durations and moments: one grammar each, for every command ----

const DURATION_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DAY_MS = DURATION_UNITS_MS.d as number;

/** `90s`, `30m`, `24h`, `7d` in milliseconds; null for any other text. */
function durationMs(text: string): number | null {
  const match = /^([0-9]{1,6})([smhd])$/.exec(text);
  return match ? Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number) : null;
}

/** A duration such as `90s`, `30m`, `24h` or `7d`, in milliseconds, at most `maxMs`; undefined when not given. */
export function optionalDuration(raw: RawArgs, key: string, maxMs: number): number | undefined {
  const text = textOf(raw[key]);
  if (text === undefined) return undefined;
  const ms = typeof text === 'string' ? durationMs(text.trim()) : null;
  if (ms === null || ms > maxMs) {
    throw new ArgumentError({
      key: 'arg.duration',
      params: { name: key, days: maxMs / DAY_MS, value: String(text) },
    });
  }
  return ms;
}

/**
 * A moment given by the operator: a calendar date YYYY-MM-DD (its midnight in TZ_NAME, resolved
 * when the operation runs: `atOrAfter`), an ISO 8601 timestamp with its offset, or a time ago in
 * the grammar of durations (`30m`, `6h`, `2d`).
 */
export type Moment = { date: string } | { at: Date };

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
/** The furthest back a time ago reaches (what PostgreSQL's timestamps hold with room to spare). */
const MAX_AGO_MS = 99_999 * DAY_MS;

/** `--since`, `--until` of every command that takes a moment. */
export function optionalMoment(raw: RawArgs, key: string): Moment | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  if (isCalendarDate(text)) return { date: text };
  if (TIMESTAMP.test(text) && !Number.isNaN(Date.parse(text))) return { at: new Date(text) };
  const ago = durationMs(text);
  if (ago !== null && ago <= MAX_AGO_MS) return { at: new Date(Date.now() - ago) };
  throw new ArgumentError({ key: 'arg.moment', params: { name: key, value: String(value) } });
}

/** `column >= moment`: a date from its midnight in `timeZone`. */
export function atOrAfter(column: Column, moment: Moment, timeZone: string): SQL {
  return 'at' in moment
    ? gte(column, moment.at)
    : sql`${column} >= (${moment.date}::date::timestamp at time zone ${timeZone})`;
}
