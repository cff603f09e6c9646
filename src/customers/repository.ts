// Reads of customers, as resources. A company sees its own customers and the global ones
// (company_id null), and nothing else.
import { and, eq, inArray, isNull, or, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { CompanyContext } from '../context.js';
import { fixedTableRead, runFixed } from '../db/prepared.js';
import { customerCounts, customers } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { changedSince, declareList, equalTo, matchingText } from '../lists/declaration.js';
import { type Page, type PageRequest, readList } from '../lists/page.js';
import { totalOf } from '../lists/total.js';
import { CustomerListQuery, type CustomerSchema } from './schemas.js';

export type CustomerRow = typeof customers.$inferSelect;
export type CustomerResource = Static<typeof CustomerSchema>;

/** The one visibility rule of customers (a placeholder in prepared statements). */
export function visibleTo(companyId: number | Placeholder): SQL {
  return or(eq(customers.companyId, companyId), isNull(customers.companyId))!;
}

export function toCustomerResource(row: CustomerRow, timeZone: string): CustomerResource {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    email: row.email,
    phone: row.phone,
    contact_number: row.contactNumber,
    nuit: row.nuit,
    address: row.address,
    created_at: formatTimestamp(row.createdAt, timeZone),
    updated_at: formatTimestamp(row.updatedAt, timeZone),
  };
}

/** The customers list as data (src/lists/declaration.ts): one filter per query parameter. */
export const customerList = declareList({
  resource: 'customers',
  query: CustomerListQuery,
  table: customers,
  id: customers.id,
  // Two index scans merged (own rows, then the global ones) rather than one `visibleTo`, which no
  // index serves.
  visible: (companyId) => [eq(customers.companyId, companyId), isNull(customers.companyId)],
  filters: {
    search: matchingText([customers.name, customers.email, customers.nuit, customers.phone]),
    type: equalTo('type'),
    updated_since: changedSince(),
  },
  sorts: { name: customers.name, created_at: customers.createdAt, updated_at: customers.updatedAt },
  defaultOrder: { sort: 'created_at', order: 'desc' },
  // The global customers are counted under company 0.
  counters: [
    { table: customerCounts, visible: (companyId) => inArray(customerCounts.companyId, [companyId, 0]) },
  ],
  shortListsByFilter: true,
  pageIdsFirst: false,
  select: ({ db }) => db.select().from(customers).$dynamic(),
  resources: ({ timeZone }, rows: CustomerRow[]) => rows.map((row) => toCustomerResource(row, timeZone)),
});

export function listCustomers(
  context: CompanyContext,
  query: Static<typeof CustomerListQuery>,
  page: PageRequest,
): Promise<Page<CustomerResource>> {
  return readList(context, customerList, query, page);
}

const CUSTOMER_BY_ID = fixedTableRead(
  customers,
  and(eq(customers.id, sql.placeholder('id')), visibleTo(sql.placeholder('companyId')))!,
);

export async function findCustomer(
  { db, companyId, timeZone }: CompanyContext,
  id: number,
): Promise<CustomerResource | null> {
  const [row] = await runFixed(db, CUSTOMER_BY_ID, { id, companyId });
  return row ? toCustomerResource(row, timeZone) : null;
}

/** Customers of the company plus global ones: what `customers_visible` of /ping counts. */
export function countVisibleCustomers(context: CompanyContext): Promise<number> {
  // The same total, remembered or not, as the unfiltered customers list.
  return totalOf(context, customerList, {});
}
