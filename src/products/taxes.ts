// The taxes a company may use (its own and the global ones), and the hint that lists them when a
// body names a tax it cannot use (decisions.md, "Products"): partners have no route to taxes, so a
// refused `tax_id` is where they learn the usable ones. Only the company's own and global taxes are
// listed, so an unknown id and another company's answer byte for byte the same.
import { asc } from 'drizzle-orm';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import { taxes } from '../db/schema.js';
import { defaultHint } from '../errors.js';
import { Decimal } from '../money.js';
import { taxVisibleTo } from './repository.js';

export interface UsableTax {
  id: number;
  /** null: a global tax, usable by every company. */
  company_id: number | null;
  name: string;
  /** Percentage, as decimal text without trailing zeros ("16", "2.5"). */
  rate: string;
}

/** Most taxes a hint names; a company with more is told how many were left out. */
const HINT_TAXES = 50;

export async function usableTaxes(db: Database, companyId: number): Promise<UsableTax[]> {
  const rows = await db
    .select({ id: taxes.id, companyId: taxes.companyId, name: taxes.name, rate: taxes.rate })
    .from(taxes)
    .where(taxVisibleTo(companyId))
    .orderBy(asc(taxes.id));
  return rows.map((row) => ({
    id: row.id,
    company_id: row.companyId,
    name: row.name,
    rate: new Decimal(row.rate).toString(),
  }));
}

/** The 422's hint when a `tax_id` is refused: the usable taxes, then the usual advice. */
export async function unknownTaxHint({ db, companyId }: CompanyContext): Promise<string> {
  const usable = await usableTaxes(db, companyId);
  const listed = usable
    .slice(0, HINT_TAXES)
    .map((tax) => `id ${tax.id} (${tax.name}, ${tax.rate}%)`)
    .join('; ');
  const more = usable.length > HINT_TAXES ? `; e mais ${usable.length - HINT_TAXES}` : '';
  const taxesText =
    usable.length === 0
      ? 'Esta empresa não tem impostos para usar: peça ao suporte que crie um.'
      : `Impostos que esta empresa pode usar em tax_id: ${listed}${more}.`;
  return `${taxesText} Sem tax_id, um produto não tem imposto. ${defaultHint('validation_failed')}`;
}
