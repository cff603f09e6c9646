// Reads of customers, as resources. A company sees its own customers and the global ones
// (company_id null), and nothing else.
import { and, count, eq, gte, isNull, or, type SQL } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { RequestContext } from '../context.js';
import { instantOf, orderByOf, type Page, type PageRequest, paginate, searchCondition } from '../db/lists.js';
import { customers } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import type { CustomerListQuery, CustomerSchema } from './schemas.js';

export type CustomerRow = typeof customers.$inferSelect;
export type CustomerResource = Static<typeof CustomerSchema>;

export function visibleTo(companyId: number): SQL {
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

export async function listCustomers(
  { db, companyId, timeZone }: RequestContext,
  query: Static<typeof CustomerListQuery>,
  page: PageRequest,
): Promise<Page<CustomerResource>> {
  const conditions: SQL[] = [visibleTo(companyId)];
  if (query.search) {
    conditions.push(
      searchCondition(query.search, [customers.name, customers.email, customers.nuit, customers.phone]),
    );
  }
  if (query.type) conditions.push(eq(customers.type, query.type));
  if (query.updated_since)
    conditions.push(gte(customers.updatedAt, instantOf(query.updated_since, timeZone)));
  const where = and(...conditions);
  const orderBy = orderByOf(
    query,
    { name: customers.name, created_at: customers.createdAt, updated_at: customers.updatedAt },
    customers.id,
    { sort: 'created_at', order: 'desc' },
  );

  return paginate(page, {
    rows: async (limit, offset) => {
      const rows = await db
        .select()
        .from(customers)
        .where(where)
        .orderBy(...orderBy)
        .limit(limit)
        .offset(offset);
      return rows.map((row) => toCustomerResource(row, timeZone));
    },
    total: async () => (await db.select({ total: count() }).from(customers).where(where))[0]?.total ?? 0,
  });
}

export async function findCustomer(
  { db, companyId, timeZone }: RequestContext,
  id: number,
): Promise<CustomerResource | null> {
  const [row] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.id, id), visibleTo(companyId)));
  return row ? toCustomerResource(row, timeZone) : null;
}

/** Customers of the company plus global ones: what `customers_visible` of /ping counts. */
export async function countVisibleCustomers({ db, companyId }: RequestContext): Promise<number> {
  const [row] = await db.select({ total: count() }).from(customers).where(visibleTo(companyId));
  return row?.total ?? 0;
}
