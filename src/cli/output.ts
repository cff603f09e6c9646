// Plain-text rendering of operation results for people, in the operator's language (headers from
// the catalog, src/i18n/catalog.ts); `--json` prints the result itself.
// Partner text (a customer's name, an invoice's notes) reaches an operator's terminal here: its
// control characters are shown as visible escapes (`\x1b`, `\r`, `\x07`), never sent raw, so
// no text can move the cursor, rewrite a line, ring the bell or set the window's title.

import type { TextKey, Translate } from '../i18n/catalog.js';

/**
 * C0 controls but line feed and tab, DEL, C1 controls, and the invisible Unicode formatting that
 * reorders or hides text on a terminal (bidirectional overrides and isolates, line and paragraph
 * separators).
 */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** In a table cell or a `key: value` line, also line feeds and tabs: one value stays on its line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_IN_CELL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(character: string): string {
  const named = NAMED[character];
  if (named) return named;
  const code = character.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text safe to print on a terminal: every control character shown as an escape; lines and tabs kept. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, visible);
}

function cellSafe(text: string): string {
  return text.replace(CONTROL_IN_CELL, visible);
}

function scalar(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(scalar).join(', ');
  if (typeof value === 'object') {
    if ('id' in value) return cellSafe(`#${value.id}${'name' in value ? ` ${value.name}` : ''}`);
    return cellSafe(JSON.stringify(value));
  }
  return cellSafe(String(value));
}

/** `key: value` lines, aligned; keys in `skip` are left out. */
export function details(object: object, skip: readonly string[] = []): string {
  const entries = Object.entries(object).filter(([key]) => !skip.includes(key));
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `  ${`${key}:`.padEnd(width + 2)}${scalar(value)}`).join('\n');
}

export type Columns<T> = readonly (readonly [header: TextKey, field: keyof T & string])[];

/**
 * A table of rows; columns are [header, field] pairs (the header a text of the catalog), or the
 * rows' own scalar fields (headed by the field names, as `--json` names them).
 */
export function table<T extends object>(t: Translate, rows: readonly T[], columns?: Columns<T>): string {
  if (rows.length === 0) return `  ${t('cli.none')}`;
  const valuesOf = (row: T) => new Map<string, unknown>(Object.entries(row));
  const lines = rows.map(valuesOf);
  const cols: readonly (readonly [string, string])[] =
    columns?.map(([header, field]) => [t(header), field] as const) ??
    [...(lines[0]?.keys() ?? [])]
      .filter((key) => lines.every((line) => typeof line.get(key) !== 'object' || line.get(key) === null))
      .map((key) => [key.toUpperCase(), key] as const);
  const cells = lines.map((line) => cols.map(([, field]) => scalar(line.get(field))));
  const widths = cols.map(([header], i) =>
    Math.max(header.length, ...cells.map((cellsOfLine) => (cellsOfLine[i] ?? '').length)),
  );
  const render = (line: readonly string[]) =>
    `  ${line
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()}`;
  return [render(cols.map(([header]) => header)), ...cells.map(render)].join('\n');
}
