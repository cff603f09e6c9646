// Bodies of queued writes, and the look-up of what one may have created. `{ $local: "<local id>" }`
// stands for the id the server will give an entry still queued; the encoder writes it as
// `{"$local":"<id>"}`, and that text can only be such an object (inside a JSON string every quote
// is escaped), so it is replaced in the bytes themselves, once, before the first send: the rest of
// the body keeps its exact bytes.
import type { PartnerApi } from '../client.js';
import { DECIMAL_FIELDS, encodeJson } from '../json.js';
import type { Entry } from './entries.js';

const LOCAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOCAL_REF = /\{"\$local":"([0-9a-f-]{36})"\}/g;
/** The writes a queue takes: POST to a collection, PUT to a customer or a product. */
const ROUTE = /^\/(customers|products|invoices)(\/[1-9][0-9]*)?$/;
const MONEY = {
  customers: DECIMAL_FIELDS.none,
  products: DECIMAL_FIELDS.product,
  invoices: DECIMAL_FIELDS.invoice,
};

export function isLocalId(value: unknown): value is string {
  return typeof value === 'string' && LOCAL_ID.test(value);
}

/** The local ids a body names, checked to be `{ $local: id }` objects with nothing else. */
function localsOf(value: unknown, path: string, found: Set<string>): void {
  if (value === null || typeof value !== 'object') return;
  if (!Object.hasOwn(value, '$local')) {
    for (const [key, field] of Object.entries(value)) localsOf(field, path ? `${path}.${key}` : key, found);
    return;
  }
  const local = (value as { $local: unknown }).$local;
  if (Object.keys(value).length !== 1 || !isLocalId(local))
    throw new TypeError(`${path || 'body'}: { $local } leva só um id local devolvido por enqueue`);
  found.add(local);
}

/** The body's JSON text (decimal strings of money fields as numbers) and the local ids it names. */
export function encodeBody(
  method: string,
  path: string,
  body: object,
): Pick<Entry, 'method' | 'body' | 'waits_for'> {
  const [, collection, id] = ROUTE.exec(path) ?? [];
  if (!collection || method !== (id ? 'PUT' : 'POST') || (id && collection === 'invoices'))
    throw new TypeError(
      `${method} ${path}: a fila aceita POST /customers, /products, /invoices e PUT /customers/{id}, /products/{id}`,
    );
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeError('body: um objecto');
  const found = new Set<string>();
  localsOf(body, '', found);
  const decimals = MONEY[collection as keyof typeof MONEY];
  return { method: method as 'POST' | 'PUT', body: encodeJson(body, decimals), waits_for: [...found] };
}

/** The body with each `{"$local":"id"}` replaced by the server's id of that entry. */
export function putIds(text: string, idOf: (local: string) => number): string {
  return text.replace(LOCAL_REF, (_, local: string) => String(idOf(local)));
}

interface Listed {
  id: number;
  reference?: string;
  sku?: string | null;
  nuit?: string | null;
  email?: string | null;
  phone?: string | null;
}

const digits = (value: unknown): string => (typeof value === 'string' ? value.replace(/[^0-9]/g, '') : '');
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

/**
 * After the 24 hours an Idempotency-Key lives on the server, resending with it could create the
 * record again. So the record a POST may have created is looked for among those changed since
 * `since` (before its first send): an invoice by its reference, a product by its sku, a customer by
 * NUIT, e-mail or phone. Its id, null (not created), or why it cannot be told apart.
 */
export async function lookUp(
  api: PartnerApi,
  path: string,
  body: string,
  since: string,
): Promise<number | null | string> {
  const sent = JSON.parse(body) as Record<string, unknown>;
  const order = { updated_since: since, sort: 'updated_at', order: 'asc' } as const;
  const first = async (list: AsyncIterable<Listed>, matches: (item: Listed) => boolean) => {
    for await (const item of list) if (matches(item)) return item.id;
    return null;
  };
  const [reference, sku, email] = [text(sent.reference), text(sent.sku), text(sent.email)?.toLowerCase()];
  if (path === '/invoices')
    return reference
      ? first(api.invoices.listAll(order), (i) => i.reference === reference)
      : 'a factura não tem reference';
  if (path === '/products')
    return sku
      ? first(api.products.listAll({ ...order, search: sku }), (p) => p.sku === sku)
      : 'o produto não tem sku';
  const [nuit, phone] = [digits(sent.nuit), digits(sent.phone)];
  const search = nuit || email || text(sent.phone);
  if (!search) return 'o cliente não tem NUIT, e-mail nem telefone';
  const matches = (c: Listed): boolean =>
    nuit
      ? digits(c.nuit) === nuit
      : email
        ? c.email?.toLowerCase() === email
        : phone !== '' && digits(c.phone) === phone;
  return first(api.customers.listAll({ ...order, search }), matches);
}
