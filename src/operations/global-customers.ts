import type { Database } from '../db/client.js';
import { customers } from '../db/schema.js';
import { OperationError } from './errors.js';

/** A customer of no company: visible to every company through the API, editable by none. */
export async function createGlobalCustomer(
  db: Database,
  input: { name: string; email?: string; nuit?: string; phone?: string; type?: 'individual' | 'company' },
): Promise<{ id: number; name: string; email: string | null; nuit: string | null; phone: string | null }> {
  const name = input.name.trim();
  if (!name) throw new OperationError({ key: 'refused.customer_name' });
  const [row] = await db
    .insert(customers)
    .values({
      companyId: null,
      name,
      type: input.type ?? 'individual',
      email: input.email ?? null,
      nuit: input.nuit ?? null,
      phone: input.phone ?? null,
    })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return { id: row.id, name: row.name, email: row.email, nuit: row.nuit, phone: row.phone };
}
