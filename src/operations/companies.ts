import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { companies } from '../db/schema.js';
import { OperationError } from './errors.js';

export interface CompanySummary {
  id: number;
  name: string;
  nuit: string | null;
  partner_api_enabled: boolean;
}

function summaryOf(row: typeof companies.$inferSelect): CompanySummary {
  return { id: row.id, name: row.name, nuit: row.nuit, partner_api_enabled: row.partnerApiEnabled };
}

export async function createCompany(
  db: Database,
  input: { name: string; nuit?: string },
): Promise<CompanySummary> {
  const name = input.name.trim();
  if (!name) throw new OperationError({ key: 'refused.company_name' });
  const [row] = await db
    .insert(companies)
    .values({ name, nuit: input.nuit ?? null })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return summaryOf(row);
}

/**
 * Turns the partner API on or off. Run as an operation (executeOperation), it returns once every
 * live instance has applied it (src/instances/), so it holds from any server's very next request.
 */
export async function setPartnerApi(
  db: Database,
  companyId: number,
  enabled: boolean,
): Promise<CompanySummary> {
  const [row] = await db
    .update(companies)
    .set({ partnerApiEnabled: enabled, updatedAt: sql`now()` })
    .where(eq(companies.id, companyId))
    .returning();
  if (!row) throw new OperationError({ key: 'refused.company_missing', params: { id: companyId } });
  return summaryOf(row);
}

export async function listCompanies(db: Database): Promise<CompanySummary[]> {
  const rows = await db.select().from(companies).orderBy(companies.id);
  return rows.map(summaryOf);
}

/** Whether the database holds any company yet (`serve` offers the demo into an empty one). */
export async function hasAnyCompany(db: Database): Promise<boolean> {
  const [row] = await db.select({ id: companies.id }).from(companies).limit(1);
  return row !== undefined;
}

export async function requireCompany(db: Database, companyId: number): Promise<void> {
  const [row] = await db.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId));
  if (!row) throw new OperationError({ key: 'refused.company_missing', params: { id: companyId } });
}
