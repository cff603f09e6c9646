// Reads of products, as resources. A company sees its own products, and nothing else (there are
// no global products).
import { and, asc, count, eq, gte, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { CompanyContext } from '../context.js';
import type { Database } from '../db/client.js';
import { changedSinceCount, counterSum } from '../db/list-counts.js';
import {
  filterFirstIds,
  instantOf,
  orderByOf,
  type Page,
  type PageRequest,
  paginate,
  readsFilterFirst,
  searchCondition,
} from '../db/lists.js';
import { productCategories, productCategoryLinks, productCounts, products, taxes } from '../db/schema.js';
import { decimalNumber, formatTimestamp } from '../format.js';
import { formatMoney } from '../money.js';
import type { ProductListQuery, ProductResource } from './schemas.js';

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
  { db, companyId, timeZone }: CompanyContext,
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

export async function listProducts(
  context: CompanyContext,
  query: ProductListQuery,
  page: PageRequest,
): Promise<Page<ProductResource>> {
  const { db, companyId, timeZone } = context;
  const conditions: SQL[] = [ownedBy(companyId)];
  if (query.search) {
    conditions.push(
      searchCondition(query.search, products.searchText, [products.name, products.productCode, products.sku]),
    );
  }
  if (query.type) conditions.push(eq(products.type, query.type));
  if (query.is_for_sale) conditions.push(eq(products.isForSale, query.is_for_sale === 'true'));
  if (query.updated_since) conditions.push(gte(products.updatedAt, instantOf(query.updated_since, timeZone)));
  const where = and(...conditions);
  const order = orderByOf(
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
  );

  return paginate(context, page, {
    list: {
      resource: 'products',
      filters: { s: query.search, t: query.type, f: query.is_for_sale, u: query.updated_since },
    },
    order,
    rowsAfterTotal: query.updated_since !== undefined,
    rows: async (limit, offset, after, total) => {
      const filtered = after ? and(where, after) : where;
      const rows = readsFilterFirst(total, order, query.updated_since ? [products.updatedAt] : [])
        ? selectProducts(db, companyId)
            .where(
              inArray(products.id, filterFirstIds(products, products.id, order, filtered, limit, offset)),
            )
            .orderBy(...order.orderBy)
        : selectProducts(db, companyId)
            .where(filtered)
            .orderBy(...order.orderBy)
            .limit(limit)
            .offset(offset);
      return withCategories(context, await rows);
    },
    count: query.search
      ? db.select({ total: count() }).from(products).where(where).getSQL()
      : countFromCounters(context, query),
  });
}

/**
 * `select` of the number of the company's products of a type, for sale or not, changed since an
 * instant, from the counters (drizzle/0010).
 */
function countFromCounters({ db, companyId, timeZone }: CompanyContext, query: ProductListQuery): SQL {
  const own = (table: typeof productCounts | typeof products) =>
    and(
      eq(table.companyId, companyId),
      query.type ? eq(table.type, query.type) : undefined,
      query.is_for_sale ? eq(table.isForSale, query.is_for_sale === 'true') : undefined,
    )!;
  if (!query.updated_since) return counterSum(productCounts.count, own(productCounts));
  return changedSinceCount(
    instantOf(query.updated_since, timeZone),
    { count: productCounts.count, updatedOn: productCounts.updatedOn, where: own(productCounts) },
    (from, until) =>
      db
        .select({ total: count() })
        .from(products)
        .where(and(own(products), gte(products.updatedAt, from), lt(products.updatedAt, until)))
        .getSQL(),
  );
}

export async function findProduct(context: CompanyContext, id: number): Promise<ProductResource | null> {
  const rows = await selectProducts(context.db, context.companyId).where(
    and(eq(products.id, id), ownedBy(context.companyId)),
  );
  const [resource] = await withCategories(context, rows);
  return resource ?? null;
}
