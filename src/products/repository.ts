// Data access for products. Every function takes the company id: a company sees its own
// products, and nothing else (there are no global products).

import { and, asc, count, eq, gte, inArray, isNull, or, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { productCategories, productCategoryLinks, products, taxes } from '../db/schema.js';
import { decimalNumber, formatMoney, formatTimestamp } from '../http/format.js';
import { instantOf, orderByOf, type PageRequest, searchCondition } from '../http/list-query.js';
import type { ProductListQuery, ProductResource } from './schemas.js';

export type ProductRow = typeof products.$inferSelect;

/** A product row with what its resource needs from other tables. */
export type ProductView = ProductRow & {
  /** Rate of the linked tax when that tax is the company's own or a global one. */
  taxRate: string | null;
  /** Names of the product's categories, sorted. */
  categories: string[];
};

export function ownedBy(companyId: number): SQL {
  return eq(products.companyId, companyId);
}

/** Taxes a company may use: its own and the global ones. */
export function taxVisibleTo(companyId: number): SQL {
  return or(eq(taxes.companyId, companyId), isNull(taxes.companyId))!;
}

/** The resource of section 2.2, field by field: nothing internal ever reaches it. */
export function toProductResource(view: ProductView, timeZone: string): ProductResource {
  return {
    id: view.id,
    name: view.name,
    product_code: view.productCode,
    sku: view.sku ?? '',
    description: view.description,
    type: view.type,
    unity: view.unity ?? '',
    price: formatMoney(view.price),
    pos_price: formatMoney(view.posPrice),
    vat_included: view.vatIncluded,
    tax_rate: decimalNumber(view.taxRate),
    stock: decimalNumber(view.stock),
    reorder_level: view.reorderLevel,
    tracks_inventory: view.inventory === 'INVENTORY',
    is_for_sale: view.isForSale,
    categories: view.categories,
    created_at: formatTimestamp(view.createdAt, timeZone),
    updated_at: formatTimestamp(view.updatedAt, timeZone),
  };
}

const selection = { product: products, taxRate: taxes.rate };

/** Rows of `select ... from products left join taxes` -> views with their categories. */
async function withCategories(
  db: Database,
  companyId: number,
  rows: { product: ProductRow; taxRate: string | null }[],
): Promise<ProductView[]> {
  const names = new Map<number, string[]>();
  if (rows.length > 0) {
    const links = await db
      .select({ productId: productCategoryLinks.productId, name: productCategories.name })
      .from(productCategoryLinks)
      .innerJoin(productCategories, eq(productCategories.id, productCategoryLinks.categoryId))
      .where(
        and(
          inArray(
            productCategoryLinks.productId,
            rows.map((row) => row.product.id),
          ),
          eq(productCategories.companyId, companyId),
        ),
      )
      .orderBy(asc(productCategories.name));
    for (const link of links) {
      const list = names.get(link.productId) ?? [];
      list.push(link.name);
      names.set(link.productId, list);
    }
  }
  return rows.map((row) => ({
    ...row.product,
    taxRate: row.taxRate,
    categories: names.get(row.product.id) ?? [],
  }));
}

export async function listProducts(
  db: Database,
  companyId: number,
  query: ProductListQuery,
  page: PageRequest,
  timeZone: string,
): Promise<{ rows: ProductView[]; total: number }> {
  const conditions: SQL[] = [ownedBy(companyId)];
  if (query.search) {
    conditions.push(searchCondition(query.search, [products.name, products.productCode, products.sku]));
  }
  if (query.type) conditions.push(eq(products.type, query.type));
  if (query.is_for_sale) conditions.push(eq(products.isForSale, query.is_for_sale === 'true'));
  if (query.updated_since) conditions.push(gte(products.updatedAt, instantOf(query.updated_since, timeZone)));
  const where = and(...conditions);

  const [rows, totals] = await Promise.all([
    db
      .select(selection)
      .from(products)
      .leftJoin(taxes, and(eq(taxes.id, products.taxId), taxVisibleTo(companyId)))
      .where(where)
      .orderBy(
        ...orderByOf(
          query,
          {
            name: products.name,
            price: products.price,
            stock: products.stock,
            created_at: products.createdAt,
            updated_at: products.updatedAt,
          },
          products.id,
          { sort: 'created_at', order: 'desc' },
        ),
      )
      .limit(page.perPage)
      .offset(page.offset),
    db.select({ total: count() }).from(products).where(where),
  ]);
  return { rows: await withCategories(db, companyId, rows), total: totals[0]?.total ?? 0 };
}

export async function findProduct(db: Database, companyId: number, id: number): Promise<ProductView | null> {
  const rows = await db
    .select(selection)
    .from(products)
    .leftJoin(taxes, and(eq(taxes.id, products.taxId), taxVisibleTo(companyId)))
    .where(and(eq(products.id, id), ownedBy(companyId)));
  const [view] = await withCategories(db, companyId, rows);
  return view ?? null;
}
