// Plain-text rendering of operation results for people; `--json` prints the result itself.

function scalar(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(scalar).join(', ');
  if (typeof value === 'object') {
    if ('id' in value) return `#${value.id}${'name' in value ? ` ${value.name}` : ''}`;
    return JSON.stringify(value);
  }
  return String(value);
}

/** `key: value` lines, aligned; keys in `skip` are left out. */
export function details(object: object, skip: readonly string[] = []): string {
  const entries = Object.entries(object).filter(([key]) => !skip.includes(key));
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `  ${`${key}:`.padEnd(width + 2)}${scalar(value)}`).join('\n');
}

export type Columns<T> = readonly (readonly [header: string, field: keyof T & string])[];

/** A table of rows; columns are [header, field] pairs, or the rows' own scalar fields. */
export function table<T extends object>(rows: readonly T[], columns?: Columns<T>): string {
  if (rows.length === 0) return '  (none)';
  const valuesOf = (row: T) => new Map<string, unknown>(Object.entries(row));
  const lines = rows.map(valuesOf);
  const cols: readonly (readonly [string, string])[] =
    columns ??
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
