// Product writes of the API (contract 2.3, decisions.md "Products").
//
// - Money is exact: a JSON number becomes a Decimal from the digits the body wrote it with
//   (src/json-numbers.ts) and is refused (never rounded) with more than 2 decimal places or 16
//   integer digits; it is stored as text in numeric(18,2).
// - `tax_id` must be a tax of the company or a global one; another company's tax is answered
//   exactly like a nonexistent one; either 422's hint lists the taxes the company may use.
// - `product_code` is `<prefix>-<number>`, the number taken from product_code_sequences by one
//   atomic upsert in the write's transaction (its row lock serialises concurrent creates of the
//   same company and type), zero-padded to 6 digits (it simply grows past 999999). Prefixes:
//     GOODS "BEN-" (bens), SERVICES "SRV-", RAW "MP-" (matéria-prima), ASSETS "ACT-" (activos),
//     KIT "KIT-".
//   Distinct prefixes keep codes unique per company across types. The sequence only grows, so a
//   code is never handed out twice; a code already taken by a product the application created
//   is skipped. A PUT that changes the type keeps the product's code (it is its identity).
// - Every write marks the product for the point-of-sale synchronisation with no approval step:
//   pos_sync_pending = true, pos_changed_at = updated_at = now().
// - Both functions work on a plain database or inside a caller's transaction (a savepoint then).

import { and, eq, sql } from 'drizzle-orm';
import { type CompanyContext, inTransaction } from '../context.js';
import { type Database, runInTransaction } from '../db/client.js';
import { isUniqueViolation } from '../db/errors.js';
import { type ProductType, productCodeSequences, products, taxes } from '../db/schema.js';
import { addFieldError, attachHint, type FieldErrors, validationFailed } from '../errors.js';
import { numberText } from '../json-numbers.js';
import { moneyFromJson } from '../money.js';
import { isDatabaseId } from '../values.js';
import { recordEvent } from '../webhooks/events.js';
import { findProduct, taxVisibleTo } from './repository.js';
import type { ProductBody, ProductResource } from './schemas.js';
import { unknownTaxHint } from './taxes.js';

export const PRODUCT_CODE_PREFIXES: Record<ProductType, string> = {
  GOODS: 'BEN',
  SERVICES: 'SRV',
  RAW: 'MP',
  ASSETS: 'ACT',
  KIT: 'KIT',
};

export function formatProductCode(type: ProductType, value: number): string {
  return `${PRODUCT_CODE_PREFIXES[type]}-${String(value).padStart(6, '0')}`;
}

const TAX_NOT_FOUND = 'Imposto inexistente.';
/** Attempts at a code before giving up (only codes taken outside the API are ever skipped). */
const CODE_ATTEMPTS = 50;

async function taxExistsFor({ db, companyId }: CompanyContext, taxId: number): Promise<boolean> {
  if (!isDatabaseId(taxId)) return false;
  const [row] = await db
    .select({ id: taxes.id })
    .from(taxes)
    .where(and(eq(taxes.id, taxId), taxVisibleTo(companyId)));
  return row !== undefined;
}

interface CheckedMoney {
  price: string;
  /** undefined: left out (kept on PUT, null on POST). */
  posPrice: string | null | undefined;
}

/**
 * The body's own rules beyond its schema: decimals and size of the amounts, a tax the company
 * cannot use. Takes any JSON, so the same rules also complete the 422 of a body whose schema
 * failed (src/http/input-checks.ts), and every problem is named at once.
 */
export async function productBodyProblems(context: CompanyContext, body: unknown): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return errors;
  const fields = body as Record<string, unknown>;
  for (const field of ['price', 'pos_price']) {
    const literal = numberText(fields, field);
    if (literal === undefined) continue;
    const checked = moneyFromJson(literal);
    if (typeof checked !== 'string') addFieldError(errors, field, checked.problem);
  }
  if (typeof fields.tax_id === 'number' && !(await taxExistsFor(context, fields.tax_id))) {
    addFieldError(errors, 'tax_id', TAX_NOT_FOUND);
    attachHint(errors, await unknownTaxHint(context));
  }
  return errors;
}

/** Refuses a schema-valid body that breaks an own rule; otherwise its amounts as exact text. */
async function checkOwnRules(context: CompanyContext, input: ProductBody): Promise<CheckedMoney> {
  const errors = await productBodyProblems(context, input);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const text = (field: 'price' | 'pos_price') => moneyFromJson(numberText(input, field)!) as string; // checked just above
  return {
    price: text('price'),
    posPrice: typeof input.pos_price === 'number' ? text('pos_price') : input.pos_price,
  };
}

/** Columns every write sets from the required fields, plus the optional fields that were sent. */
function columnsOf(input: ProductBody, money: CheckedMoney) {
  const columns: Partial<typeof products.$inferInsert> = {
    name: input.name,
    type: input.type,
    inventory: input.inventory,
    price: money.price,
  };
  if (money.posPrice !== undefined) columns.posPrice = money.posPrice;
  if (input.description !== undefined) columns.description = input.description;
  if (input.sku !== undefined) columns.sku = input.sku;
  if (input.unity !== undefined) columns.unity = input.unity;
  if (input.vat_included !== undefined) columns.vatIncluded = input.vat_included ?? false;
  if (input.reorder_level !== undefined) columns.reorderLevel = input.reorder_level;
  if (input.is_for_sale !== undefined) columns.isForSale = input.is_for_sale ?? true;
  if (input.is_for_purchase !== undefined) columns.isForPurchase = input.is_for_purchase ?? true;
  if (input.tax_id !== undefined) columns.taxId = input.tax_id;
  return columns;
}

const posMark = () => ({ posSyncPending: true, posChangedAt: sql`now()`, updatedAt: sql`now()` });

/** The next number of the company's sequence for the type: one atomic statement. */
async function nextCodeNumber(db: Database, companyId: number, type: ProductType): Promise<number> {
  const [row] = await db
    .insert(productCodeSequences)
    .values({ companyId, type, lastValue: 1 })
    .onConflictDoUpdate({
      target: [productCodeSequences.companyId, productCodeSequences.type],
      set: {
        lastValue: sql`${sql.identifier('product_code_sequences')}.${sql.identifier('last_value')} + 1`,
      },
    })
    .returning({ value: productCodeSequences.lastValue });
  if (!row) throw new Error('product code sequence returned no row');
  return row.value;
}

export async function createProduct(context: CompanyContext, input: ProductBody): Promise<ProductResource> {
  const { db, companyId } = context;
  const money = await checkOwnRules(context, input);
  const values = {
    ...columnsOf(input, money),
    name: input.name,
    type: input.type,
    inventory: input.inventory,
    companyId,
    stock: input.inventory === 'INVENTORY' ? '0' : null,
    ...posMark(),
  };
  return runInTransaction(db, async (tx) => {
    for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
      const productCode = formatProductCode(input.type, await nextCodeNumber(tx, companyId, input.type));
      try {
        // A savepoint, so a code already taken outside the API only costs this one insert.
        const row = await runInTransaction(tx, async (savepoint) => {
          const [inserted] = await savepoint
            .insert(products)
            .values({ ...values, productCode })
            .returning({ id: products.id });
          return inserted;
        });
        if (!row) throw new Error('insert returned no row');
        const created = await findProduct(inTransaction(context, tx), row.id);
        if (!created) throw new Error('created product not found');
        await recordEvent(inTransaction(context, tx), 'product.created', created);
        return created;
      } catch (error) {
        if (!isUniqueViolation(error, 'products_company_code_key')) throw error;
      }
    }
    throw new Error(`no free product code after ${CODE_ATTEMPTS} attempts`);
  });
}

/** Whether the id is a product of the company (checked before a PUT's body). */
export async function isOwnProduct({ db, companyId }: CompanyContext, id: number): Promise<boolean> {
  const [row] = await db
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.id, id), eq(products.companyId, companyId)));
  return row !== undefined;
}

/**
 * Replaces the required fields, changes the optional ones that were sent (null clears them) and
 * keeps stock consistent with `inventory`: NON_INVENTORY has none, INVENTORY keeps its stock or
 * starts at 0. Null if the id is not one of the company's products.
 */
export async function updateProduct(
  context: CompanyContext,
  id: number,
  input: ProductBody,
): Promise<ProductResource | null> {
  const { db, companyId } = context;
  const money = await checkOwnRules(context, input);
  return runInTransaction(db, async (tx) => {
    const updated = await tx
      .update(products)
      .set({
        ...columnsOf(input, money),
        stock: input.inventory === 'INVENTORY' ? sql`coalesce(${products.stock}, 0)` : null,
        ...posMark(),
      })
      .where(and(eq(products.id, id), eq(products.companyId, companyId)))
      .returning({ id: products.id });
    if (updated.length === 0) return null;
    const product = await findProduct(inTransaction(context, tx), id);
    if (product) await recordEvent(inTransaction(context, tx), 'product.updated', product);
    return product;
  });
}
