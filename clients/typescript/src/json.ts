// Request bodies are encoded here, once per call: a retry resends these very bytes.
//
// Money goes in as decimal strings ("1250.50") and the API takes it as JSON numbers. The encoder
// writes such a string's digits as the number literal itself, so the amount never passes through
// a binary float on this side. A string that is not a plain decimal is sent as a string, and the
// API answers 422 validation_failed naming the field.

/** A JSON number literal without exponent: what a decimal string may be written as. */
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export type JsonPath = readonly (string | number)[];

/** JSON text of `value`, like JSON.stringify, with decimal strings at `isDecimal` paths as numbers. */
export function encodeJson(value: unknown, isDecimal: (path: JsonPath) => boolean): string {
  return encode(value, [], isDecimal) ?? 'null';
}

function encode(
  value: unknown,
  path: (string | number)[],
  isDecimal: (path: JsonPath) => boolean,
): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') {
    return isDecimal(path) && DECIMAL.test(value) ? value : JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new TypeError(`${path.join('.') || 'body'}: ${value} is not a JSON number`);
    return JSON.stringify(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (typeof value === 'bigint') return value.toString();
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return encode((value as { toJSON(): unknown }).toJSON(), path, isDecimal);
  }
  if (Array.isArray(value)) {
    const items = value.map((item, index) => encode(item, [...path, index], isDecimal) ?? 'null');
    return `[${items.join(',')}]`;
  }
  const fields: string[] = [];
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const encoded = encode(field, [...path, key], isDecimal);
    if (encoded !== undefined) fields.push(`${JSON.stringify(key)}:${encoded}`);
  }
  return `{${fields.join(',')}}`;
}

/** Paths of the money fields in each write body. */
export const DECIMAL_FIELDS = {
  none: (): boolean => false,
  product: (path: JsonPath): boolean => path.length === 1 && (path[0] === 'price' || path[0] === 'pos_price'),
  invoice: (path: JsonPath): boolean =>
    path.length === 3 && path[0] === 'items' && typeof path[1] === 'number' && path[2] === 'price',
};
