// After the 24 hours an Idempotency-Key lives on the server, resending an entry with it could
// create the record a second time. So an entry sent before with a key that may have expired is
// first looked for, through the client's lists, among the records changed since that first send:
// an invoice by its reference, a product by its sku, a customer by NUIT, e-mail or phone.
import type { PartnerApi } from '../client.js';

export type LookupResult = { found: number } | { found: null } | { unverifiable: string };

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

/** The first record of the list, changed since the query's `updated_since`, that `matches`. */
async function scan(list: AsyncIterable<Listed>, matches: (item: Listed) => boolean): Promise<number | null> {
  for await (const item of list) if (matches(item)) return item.id;
  return null;
}

/** Looks for the record a POST may have created; `since` is an ISO time before its first send. */
export async function lookUp(
  api: PartnerApi,
  path: string,
  bodyText: string,
  since: string,
): Promise<LookupResult> {
  const body = JSON.parse(bodyText) as Record<string, unknown>;
  const order = { updated_since: since, sort: 'updated_at', order: 'asc' } as const;
  if (path === '/invoices') {
    const reference = text(body.reference);
    if (reference === null) return { unverifiable: 'a factura não tem reference' };
    return { found: await scan(api.invoices.listAll(order), (i) => i.reference === reference) };
  }
  if (path === '/products') {
    const sku = text(body.sku);
    if (sku === null) return { unverifiable: 'o produto não tem sku' };
    return { found: await scan(api.products.listAll({ ...order, search: sku }), (p) => p.sku === sku) };
  }
  const nuit = digits(body.nuit);
  const email = text(body.email)?.toLowerCase() ?? null;
  const phone = digits(body.phone);
  const search = nuit || email || text(body.phone);
  if (!search) return { unverifiable: 'o cliente não tem NUIT, e-mail nem telefone' };
  const matches = (c: Listed): boolean =>
    nuit
      ? digits(c.nuit) === nuit
      : email
        ? c.email?.toLowerCase() === email
        : phone !== '' && digits(c.phone) === phone;
  return { found: await scan(api.customers.listAll({ ...order, search }), matches) };
}
