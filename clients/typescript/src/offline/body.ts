// Bodies of queued writes. `{ $local: "<local id>" }` stands for the id the server will give an
// entry still queued; the encoder writes it as `{"$local":"<id>"}`, and that text can only be
// such an object (inside a JSON string every quote is escaped), so it is replaced in the bytes
// themselves, once, before the first send: the rest of the body keeps its exact bytes.
import { DECIMAL_FIELDS, encodeJson, type JsonPath } from '../json.js';

const LOCAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOCAL_REF = /\{"\$local":"([0-9a-f-]{36})"\}/g;

/** The writes a queue takes: POST to a collection, PUT to one record. */
const ROUTES: { method: 'POST' | 'PUT'; pattern: RegExp; decimals: (path: JsonPath) => boolean }[] = [
  { method: 'POST', pattern: /^\/customers$/, decimals: DECIMAL_FIELDS.none },
  { method: 'POST', pattern: /^\/products$/, decimals: DECIMAL_FIELDS.product },
  { method: 'POST', pattern: /^\/invoices$/, decimals: DECIMAL_FIELDS.invoice },
  { method: 'PUT', pattern: /^\/customers\/[1-9][0-9]*$/, decimals: DECIMAL_FIELDS.none },
  { method: 'PUT', pattern: /^\/products\/[1-9][0-9]*$/, decimals: DECIMAL_FIELDS.product },
];

export function isLocalId(value: unknown): value is string {
  return typeof value === 'string' && LOCAL_ID.test(value);
}

/** The local ids a body names, checked to be `{ $local: id }` objects with nothing else. */
function localsOf(value: unknown, path: string, found: Set<string>): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) localsOf(item, `${path}.${index}`, found);
    return;
  }
  if (Object.hasOwn(value, '$local')) {
    const keys = Object.keys(value);
    const local = (value as { $local: unknown }).$local;
    if (keys.length !== 1 || !isLocalId(local)) {
      throw new TypeError(`${path || 'body'}: { $local } leva só um id local devolvido por enqueue`);
    }
    found.add(local);
    return;
  }
  for (const [key, field] of Object.entries(value)) localsOf(field, path ? `${path}.${key}` : key, found);
}

/** The body's JSON text (decimal strings of money fields as numbers) and the local ids it names. */
export function encodeBody(
  method: string,
  path: string,
  body: object,
): { method: 'POST' | 'PUT'; text: string; waitsFor: string[] } {
  const route = ROUTES.find((r) => r.method === method && r.pattern.test(path));
  if (!route) {
    throw new TypeError(
      `${method} ${path}: a fila aceita POST /customers, /products, /invoices e PUT /customers/{id}, /products/{id}`,
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeError('body: um objecto');
  const found = new Set<string>();
  localsOf(body, '', found);
  return { method: route.method, text: encodeJson(body, route.decimals), waitsFor: [...found] };
}

/** The body with each `{"$local":"id"}` replaced by the server's id of that entry. */
export function putIds(text: string, idOf: (local: string) => number): string {
  return text.replace(LOCAL_REF, (_, local: string) => String(idOf(local)));
}
