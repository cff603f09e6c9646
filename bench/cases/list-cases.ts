// Every page-1 list request of the goals (each sort value asc and desc, the default order, each
// filter, and the sync shape: `updated_since` a day back in each order), with the exact `total`
// each one must report, counted here by plain SQL straight from the contract's meaning of the
// filter, independently of the API's own queries.
import type { ListParams } from './list-params.js';

export type Resource = 'customers' | 'products' | 'invoices' | 'payments';

export interface ListCase {
  resource: Resource;
  label: string;
  query: Record<string, string>;
  /** Condition (besides the company's visibility) that defines the expected total; $2.. are `values`. */
  where: string;
  values: unknown[];
  /** The sync shape (`updated_since` within the last day): its first request has a tighter goal. */
  sync?: boolean;
}

/** Case- and accent-insensitive substring match, as decisions.md defines `search`. */
const FOLD = (expression: string) =>
  `translate(lower(${expression}), 'áàâãäåéèêëíìîïóòôõöúùûüçñýÿ', 'aaaaaaeeeeiiiiooooouuuucnyy')`;
const searchOf = (columns: string[]) =>
  `(${columns.map((column) => `${FOLD(column)} like '%' || ${FOLD('$2::text')} || '%'`).join(' or ')})`;

const SORTS: Record<Resource, string[]> = {
  customers: ['name', 'created_at', 'updated_at'],
  products: ['name', 'price', 'stock', 'created_at', 'updated_at'],
  invoices: ['invoice_date', 'due_date', 'grand_total', 'created_at', 'updated_at'],
  payments: ['payment_date', 'amount', 'created_at', 'updated_at'],
};

/** SQL counting the rows a company sees of a resource, with `where` added ($1 is the company). */
export function countSql(resource: Resource, where: string): string {
  switch (resource) {
    case 'customers':
      return `select count(*)::int as total from customers where (company_id = $1 or company_id is null) and ${where}`;
    case 'products':
      return `select count(*)::int as total from products where company_id = $1 and ${where}`;
    case 'invoices':
      return `select count(*)::int as total from invoices where company_id = $1 and ${where}`;
    case 'payments':
      return `select count(*)::int as total from payments p join invoices i on i.id = p.invoice_id
        where p.company_id = $1 and p.kind = 'receipt' and i.company_id = $1 and ${where}`;
  }
}

/** The default order and each sort asc and desc, of the list that `base` filters. */
function sortCases(resource: Resource, base: Omit<ListCase, 'resource'>): ListCase[] {
  const prefix = base.label ? `${base.label}&` : '';
  const cases: ListCase[] = [{ resource, ...base, label: `${prefix}default order` }];
  for (const sort of SORTS[resource]) {
    for (const order of ['asc', 'desc']) {
      cases.push({
        resource,
        ...base,
        label: `${prefix}sort=${sort}&order=${order}`,
        query: { ...base.query, sort, order },
      });
    }
  }
  return cases;
}

/** An incremental sync: changes since a day before the newest one, in each order. */
function syncCases(resource: Resource, p: ListParams): ListCase[] {
  return sortCases(resource, {
    label: `updated_since=${p.syncSince}`,
    query: { updated_since: p.syncSince },
    where: 'updated_at >= $2::timestamptz',
    values: [p.syncSince],
    sync: true,
  });
}

const since = (column: string) => `${column} >= ($2::timestamp at time zone 'Africa/Maputo')`;

function filterCases(p: ListParams): ListCase[] {
  const customerSearch = searchOf(['name', 'email', 'nuit', 'phone']);
  const productSearch = searchOf(['name', 'product_code', 'sku']);
  const search = (resource: Resource, what: string, term: string, where: string): ListCase => ({
    resource,
    label: `search ${what} "${term}"`,
    query: { search: term },
    where,
    values: [term],
  });
  return [
    search('customers', 'name', p.nameTerm, customerSearch),
    ...['asc', 'desc'].map((order): ListCase => {
      const named = search('customers', 'name', p.nameTerm, customerSearch);
      return {
        ...named,
        label: `${named.label}&sort=name&order=${order}`,
        query: { ...named.query, sort: 'name', order },
      };
    }),
    search('customers', 'email', p.email, customerSearch),
    search('customers', 'NUIT', p.nuit, customerSearch),
    search('customers', 'phone', p.phone, customerSearch),
    {
      resource: 'customers',
      label: 'type=company',
      query: { type: 'company' },
      where: `type = 'company'`,
      values: [],
    },
    {
      resource: 'customers',
      label: `updated_since=${p.updatedSince}`,
      query: { updated_since: p.updatedSince },
      where: since('updated_at'),
      values: [p.updatedSince],
    },
    search('products', 'name', p.productWord, productSearch),
    search('products', 'code', p.productCode, productSearch),
    search('products', 'SKU', p.sku, productSearch),
    {
      resource: 'products',
      label: 'type=SERVICES',
      query: { type: 'SERVICES' },
      where: `type = 'SERVICES'`,
      values: [],
    },
    {
      resource: 'products',
      label: 'is_for_sale=false',
      query: { is_for_sale: 'false' },
      where: 'not is_for_sale',
      values: [],
    },
    {
      resource: 'products',
      label: `updated_since=${p.updatedSince}`,
      query: { updated_since: p.updatedSince },
      where: since('updated_at'),
      values: [p.updatedSince],
    },
    ...['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled'].map(
      (status): ListCase => ({
        resource: 'invoices',
        label: `status=${status}`,
        query: { status },
        where: 'status = $2',
        values: [status],
      }),
    ),
    {
      resource: 'invoices',
      label: `customer_id=${p.busiestCustomer} (busiest)`,
      query: { customer_id: String(p.busiestCustomer) },
      where: 'customer_id = $2',
      values: [p.busiestCustomer],
    },
    {
      resource: 'invoices',
      label: `customer_id=${p.typicalCustomer} (typical)`,
      query: { customer_id: String(p.typicalCustomer) },
      where: 'customer_id = $2',
      values: [p.typicalCustomer],
    },
    {
      resource: 'invoices',
      label: `date_from=${p.monthFrom}&date_to=${p.monthTo}`,
      query: { date_from: p.monthFrom, date_to: p.monthTo },
      where: 'invoice_date between $2::date and $3::date',
      values: [p.monthFrom, p.monthTo],
    },
    {
      resource: 'invoices',
      label: `date_from=${p.yearAgo}`,
      query: { date_from: p.yearAgo },
      where: 'invoice_date >= $2::date',
      values: [p.yearAgo],
    },
    {
      resource: 'invoices',
      label: `updated_since=${p.updatedSince}`,
      query: { updated_since: p.updatedSince },
      where: since('updated_at'),
      values: [p.updatedSince],
    },
    {
      resource: 'invoices',
      label: `updated_since=${p.yearAgo}`,
      query: { updated_since: p.yearAgo },
      where: since('updated_at'),
      values: [p.yearAgo],
    },
    {
      resource: 'payments',
      label: `invoice_id=${p.invoiceWithReceipts}`,
      query: { invoice_id: String(p.invoiceWithReceipts) },
      where: 'p.invoice_id = $2',
      values: [p.invoiceWithReceipts],
    },
    {
      resource: 'payments',
      label: `date_from=${p.monthFrom}&date_to=${p.monthTo}`,
      query: { date_from: p.monthFrom, date_to: p.monthTo },
      where: 'p.payment_date between $2::date and $3::date',
      values: [p.monthFrom, p.monthTo],
    },
  ];
}

export function listCases(params: ListParams): ListCase[] {
  const resources: Resource[] = ['customers', 'products', 'invoices', 'payments'];
  const filters = filterCases(params);
  const all = { label: '', query: {}, where: 'true', values: [] };
  return resources.flatMap((resource) => [
    ...sortCases(resource, all),
    ...filters.filter((candidate) => candidate.resource === resource),
    ...(resource === 'payments' ? [] : syncCases(resource, params)),
  ]);
}

export function pathOf(resource: Resource, query: Record<string, string>): string {
  const search = new URLSearchParams(query).toString();
  return `/${resource}${search ? `?${search}` : ''}`;
}
