// The point-of-sale side of products: what the API changed and the POS has not taken yet
// (contract rule 5: no approval step). `bin/invoicing pos pending --company ID` prints it.
import { and, asc, eq } from 'drizzle-orm';
import type { CompanyContext } from '../context.js';
import { products } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { formatMoney } from '../money.js';

export interface PendingPosProduct {
  id: number;
  product_code: string;
  name: string;
  /** Decimal text with two places, or null. */
  price: string | null;
  pos_price: string | null;
  /** When the product was last changed for the POS, in the context's time zone. */
  changed_at: string | null;
}

/** Products of the company awaiting the POS synchronisation, oldest change first. */
export async function listPendingPosSync(context: CompanyContext): Promise<PendingPosProduct[]> {
  const { db, companyId, timeZone } = context;
  const rows = await db
    .select({
      id: products.id,
      productCode: products.productCode,
      name: products.name,
      price: products.price,
      posPrice: products.posPrice,
      changedAt: products.posChangedAt,
    })
    .from(products)
    .where(and(eq(products.companyId, companyId), eq(products.posSyncPending, true)))
    .orderBy(asc(products.posChangedAt), asc(products.id));
  return rows.map((row) => ({
    id: row.id,
    product_code: row.productCode,
    name: row.name,
    price: formatMoney(row.price),
    pos_price: formatMoney(row.posPrice),
    changed_at: row.changedAt === null ? null : formatTimestamp(row.changedAt, timeZone),
  }));
}
