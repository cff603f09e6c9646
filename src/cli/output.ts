// Plain-text rendering of operation results for people; `--json` prints the result itself.

export type Row = Record<string, unknown>;

function scalar(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(scalar).join(', ');
  if (typeof value === 'object') {
    const object = value as Row;
    if ('id' in object) return `#${object.id}${'name' in object ? ` ${object.name}` : ''}`;
    return JSON.stringify(value);
  }
  return String(value);
}

/** `key: value` lines, aligned; keys in `skip` are left out. */
export function details(object: Row, skip: readonly string[] = []): string {
  const entries = Object.entries(object).filter(([key]) => !skip.includes(key));
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `  ${`${key}:`.padEnd(width + 2)}${scalar(value)}`).join('\n');
}

/** A table of rows; columns are [header, field] pairs, or the rows' own keys. */
export function table(rows: readonly Row[], columns?: readonly (readonly [string, string])[]): string {
  if (rows.length === 0) return '  (none)';
  const cols: readonly (readonly [string, string])[] =
    columns ??
    Object.keys(rows[0] ?? {})
      .filter((key) => rows.every((row) => typeof row[key] !== 'object' || row[key] === null))
      .map((key) => [key.toUpperCase(), key] as const);
  const cells = rows.map((row) => cols.map(([, field]) => scalar(row[field])));
  const widths = cols.map(([header], i) =>
    Math.max(header.length, ...cells.map((line) => (line[i] ?? '').length)),
  );
  const render = (line: readonly string[]) =>
    `  ${line
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()}`;
  return [render(cols.map(([header]) => header)), ...cells.map(render)].join('\n');
}

export function asRow(value: unknown): Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Row) : { value };
}

export function field(value: unknown, key: string): unknown {
  return asRow(value)[key];
}
