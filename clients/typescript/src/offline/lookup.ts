// After the 24 hours an Idempotency-Key lives on the server, resending an entry with it could
// create the record a second time. So an entry sent before with a key that may have expired is
// first looked for, with the routes that exist, among the records changed since that first send:
// an invoice by its reference, a product by its sku, a customer by NUIT, e-mail or phone.
import type { Transport } from '../transport.js';

export type LookupResult = { found: number } | { found: null } | { unverifiable: string };

interface Listed {
  id: number;
  reference?: string;
  sku?: string | null;
  nuit?: string | null;
  email?: string | null;
  phone?: string | null;
}

interface ListPage {
  data: Listed[];
  pagination: { current_page: number; last_page: number };
}

const digits = (value: unknown): string => (typeof value === 'string' ? value.replace(/[^0-9]/g, '') : '');
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

/** The first record of the collection, changed since `since`, that `matches`. */
async function scan(
  transport: Transport,
  collection: string,
  query: Record<string, unknown>,
  matches: (item: Listed) => boolean,
): Promise<number | null> {
  for (let page = 1; ; page++) {
    const { body } = await transport.call<ListPage>({
      method: 'GET',
      path: `/${collection}`,
      query: { ...query, sort: 'updated_at', order: 'asc', per_page: 100, page },
    });
    const hit = body.data.find(matches);
    if (hit) return hit.id;
    if (body.pagination.current_page >= body.pagination.last_page || body.data.length === 0) return null;
  }
}

/** Looks for the record a POST may have created; `since` is an ISO time before its first send. */
export async function lookUp(
  transport: Transport,
  path: string,
  bodyText: string,
  since: string,
): Promise<LookupResult> {
  const body = JSON.parse(bodyText) as Record<string, unknown>;
  if (path === '/invoices') {
    const reference = text(body.reference);
    if (reference === null) return { unverifiable: 'a factura não tem reference' };
    return {
      found: await scan(transport, 'invoices', { updated_since: since }, (i) => i.reference === reference),
    };
  }
  if (path === '/products') {
    const sku = text(body.sku);
    if (sku === null) return { unverifiable: 'o produto não tem sku' };
    const query = { updated_since: since, search: sku };
    return { found: await scan(transport, 'products', query, (p) => p.sku === sku) };
  }
  const nuit = digits(body.nuit);
  const email = text(body.email)?.toLowerCase() ?? null;
  const phone = digits(body.phone);
  const search = nuit || email || text(body.phone);
  if (!search) return { unverifiable: 'o cliente não tem NUIT, e-mail nem telefone' };
  const query = { updated_since: since, search };
  const matches = (c: Listed): boolean =>
    nuit
      ? digits(c.nuit) === nuit
      : email
        ? c.email?.toLowerCase() === email
        : phone !== '' && digits(c.phone) === phone;
  return { found: await scan(transport, 'customers', query, matches) };
}
