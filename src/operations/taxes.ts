import type { Database } from '../db/client.js';
import { taxes } from '../db/schema.js';
import { Decimal } from '../money.js';
import { type UsableTax, usableTaxes } from '../products/taxes.js';
import { requireCompany } from './companies.js';
import { OperationError } from './errors.js';

export interface TaxSummary {
  id: number;
  company_id: number | null;
  name: string;
  rate: string;
}

/** A tax of one company (`companyId`) or a global one (`companyId` null), e.g. IVA 16%. */
export async function createTax(
  db: Database,
  input: { companyId: number | null; name: string; rate: string },
): Promise<TaxSummary> {
  const name = input.name.trim();
  if (!name) throw new OperationError({ key: 'refused.tax_name' });
  let rate: Decimal;
  try {
    rate = new Decimal(input.rate);
  } catch {
    throw new OperationError({ key: 'refused.tax_rate_number', params: { value: input.rate } });
  }
  if (!rate.isFinite() || rate.lt(0) || rate.gt(100) || rate.decimalPlaces() > 4) {
    throw new OperationError({ key: 'refused.tax_rate' });
  }
  if (input.companyId !== null) await requireCompany(db, input.companyId);
  const [row] = await db
    .insert(taxes)
    .values({ companyId: input.companyId, name, rate: rate.toFixed(4) })
    .returning();
  if (!row) throw new Error('insert returned no row');
  return { id: row.id, company_id: row.companyId, name: row.name, rate: new Decimal(row.rate).toString() };
}

/** The taxes a company may use (its own, then the global ones, by id): what a refused tax_id's 422 lists. */
export async function listTaxes(
  db: Database,
  companyId: number,
): Promise<{ company_id: number; taxes: UsableTax[] }> {
  await requireCompany(db, companyId);
  return { company_id: companyId, taxes: await usableTaxes(db, companyId) };
}
