// Customer writes of the API. The e-mail is unique per company without regard to case; the
// database's unique index enforces it, so two concurrent requests cannot both pass.
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { CompanyContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { customers } from '../db/schema.js';
import { type FieldErrors, validationFailed } from '../errors.js';
import { recordEvent } from '../webhooks/events.js';
import { type CustomerResource, toCustomerResource } from './repository.js';
import type { CustomerCreateBody, CustomerUpdateBody } from './schemas.js';

const EMAIL_TAKEN = 'Já existe um cliente desta empresa com este e-mail.';

function columnsOf(input: Static<typeof CustomerUpdateBody>) {
  const columns: Partial<typeof customers.$inferInsert> = {};
  if (input.name !== undefined) columns.name = input.name;
  if (input.type !== undefined) columns.type = input.type;
  if (input.email !== undefined) columns.email = input.email;
  if (input.phone !== undefined) columns.phone = input.phone;
  if (input.contact_number !== undefined) columns.contactNumber = input.contact_number;
  if (input.nuit !== undefined) columns.nuit = input.nuit;
  if (input.address !== undefined) columns.address = input.address;
  return columns;
}

async function refusingDuplicateEmail<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'customers_company_email_key'))
      throw validationFailed({ email: [EMAIL_TAKEN] });
    throw error;
  }
}

export async function createCustomer(
  context: CompanyContext,
  input: Static<typeof CustomerCreateBody>,
): Promise<CustomerResource> {
  const { db, companyId, timeZone } = context;
  const [row] = await refusingDuplicateEmail(() =>
    db
      .insert(customers)
      .values({ type: 'individual', ...columnsOf(input), name: input.name, companyId })
      .returning(),
  );
  if (!row) throw new Error('insert returned no row');
  const customer = toCustomerResource(row, timeZone);
  await recordEvent(context, 'customer.created', customer);
  return customer;
}

/** Whether the id is a customer the company may change (its own; global ones are not). */
export async function isOwnCustomer({ db, companyId }: CompanyContext, id: number): Promise<boolean> {
  const [row] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.id, id), eq(customers.companyId, companyId)));
  return row !== undefined;
}

/** Changes only the fields sent; null if the id is not one of the company's own customers. */
export async function updateCustomer(
  context: CompanyContext,
  id: number,
  input: Static<typeof CustomerUpdateBody>,
): Promise<CustomerResource | null> {
  const { db, companyId, timeZone } = context;
  const own = and(eq(customers.id, id), eq(customers.companyId, companyId));
  const columns = columnsOf(input);
  const [row] =
    Object.keys(columns).length === 0
      ? await db.select().from(customers).where(own)
      : await refusingDuplicateEmail(() =>
          db
            .update(customers)
            .set({ ...columns, updatedAt: sql`now()` })
            .where(own)
            .returning(),
        );
  const customer = row ? toCustomerResource(row, timeZone) : null;
  if (customer && Object.keys(columns).length > 0) {
    await recordEvent(context, 'customer.updated', customer);
  }
  return customer;
}

/**
 * The own rule judged on a body whose schema failed (src/http/input-checks.ts), so that one 422
 * names every problem: an e-mail another customer of the company already has.
 */
export async function customerBodyProblems(
  { db, companyId }: CompanyContext,
  body: unknown,
  id: number | null,
): Promise<FieldErrors> {
  const email = typeof body === 'object' && body !== null ? (body as { email?: unknown }).email : undefined;
  if (typeof email !== 'string' || email === '') return {};
  const conditions = [eq(customers.companyId, companyId), sql`lower(${customers.email}) = lower(${email})`];
  if (id !== null) conditions.push(ne(customers.id, id));
  const [taken] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(...conditions));
  return taken ? { email: [EMAIL_TAKEN] } : {};
}
