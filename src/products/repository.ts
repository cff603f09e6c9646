// Reads of products, as resources. A company sees its own products, and nothing else (there are
// no global products).
import { and, asc, eq, inArray, isNull, or, type SQL } from 'drizzle-orm';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import { productCategories, productCategoryLinks, productCounts, products, taxes } from '../db/schema.js';
import { decimalNumber, formatTimestamp } from '../format.js';
import { changedSince, declareList, equalTo, type ListContext, matchingText } from '../lists/declaration.js';
import { type Page, type PageRequest, readList } from '../lists/page.js';
import { formatMoney } from '../money.js';
import { ProductListQuery, type ProductResource } from './schemas.js';

export type ProductRow = typeof products.$inferSelect;

/** A product row with what its resource needs from other tables. */
type ProductView = ProductRow & {
  /** Rate of the linked tax when that tax is the company's own or a global one. */
  taxRate: string | null;
  /** Names of the product's categories, sorted. */
  categories: string[];
};

function ownedBy(companyId: number): SQL {
  return eq(products.companyId, companyId);
}

/** Taxes a company may use: its own and the global ones. */
export function taxVisibleTo(companyId: number): SQL {
  return or(eq(taxes.companyId, companyId), isNull(taxes.companyId))!;
}

/** The resource of section 2.2, field by field: nothing internal ever reaches it. */
function toProductResource(view: ProductView, timeZone: string): ProductResource {
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

/** Rows of `select ... from products left join taxes` -> resources with their categories. */
async function withCategories(
  { db, companyId, timeZone }: ListContext,
  rows: { product: ProductRow; taxRate: string | null }[],
): Promise<ProductResource[]> {
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
  return rows.map((row) =>
    toProductResource(
      { ...row.product, taxRate: row.taxRate, categories: names.get(row.product.id) ?? [] },
      timeZone,
    ),
  );
}

function selectProducts(db: Database, companyId: number) {
  return db
    .select(selection)
    .from(products)
    .leftJoin(taxes, and(eq(taxes.id, products.taxId), taxVisibleTo(companyId)));
}

/** The products list as data (src/lists/declaration.ts): one filter per query parameter. */
export const productList = declareList({
  resource: 'products',
  query: ProductListQuery,
  table: products,
  id: products.id,
  visible: ownedBy,
  filters: {
    search: matchingText([products.name, products.productCode, products.sku]),
    type: equalTo('type'),
    is_for_sale: equalTo('isForSale', (value) => value === 'true'),
    updated_since: changedSince(),
  },
  sorts: {
    name: products.name,
    price: products.price,
    stock: products.stock,
    created_at: products.createdAt,
    updated_at: products.updatedAt,
  },
  defaultOrder: { sort: 'created_at', order: 'desc' },
  counters: [{ table: productCounts, visible: (companyId) => eq(productCounts.companyId, companyId) }],
  shortListsByFilter: true,
  pageIdsFirst: false,
  select: ({ db, companyId }) => selectProducts(db, companyId).$dynamic(),
  resources: withCategories,
});

export function listProducts(
  context: CompanyContext,
  query: ProductListQuery,
  page: PageRequest,
): Promise<Page<ProductResource>> {
  return readList(context, productList, query, page);
}

export async function findProduct(context: CompanyContext, id: number): Promise<ProductResource | null> {
  const rows = await selectProducts(context.db, context.companyId).where(
    and(eq(products.id, id), ownedBy(context.companyId)),
  );
  const [resource] = await withCategories(context, rows);
  return resource ?? null;
}
