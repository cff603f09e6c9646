// Everything lists share: page, per_page, sort and order, the pagination object, and the
// order rules of decisions.md (asc by default when `sort` is given, `id` as tie-breaker).
import { asc, type Column, desc, type SQL, sql } from 'drizzle-orm';
import { type TProperties, Type } from 'typebox';
import { StringEnum } from './schema-helpers.js';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;

export type SortOrder = 'asc' | 'desc';

/** Query schema of a list: the shared paging/sorting parameters plus the resource's filters. */
export function listQuerySchema<const S extends readonly string[], P extends TProperties>(
  sortValues: S,
  filters: P,
) {
  return Type.Object(
    {
      page: Type.Integer({
        minimum: 1,
        default: 1,
        description: 'Use um número inteiro maior ou igual a 1.',
      }),
      per_page: Type.Integer({
        minimum: 1,
        default: DEFAULT_PER_PAGE,
        description: `Use um número inteiro maior ou igual a 1 (valores acima de ${MAX_PER_PAGE} contam como ${MAX_PER_PAGE}).`,
      }),
      sort: Type.Optional(StringEnum(sortValues)),
      order: Type.Optional(StringEnum(['asc', 'desc'] as const)),
      ...filters,
    },
    // Unknown query parameters are ignored, as decisions.md says.
    { additionalProperties: true },
  );
}

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

export function pageRequest(query: { page?: number; per_page?: number }): PageRequest {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

export interface Pagination {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  last_page: number;
}

export function paginationOf(total: number, count: number, page: PageRequest): Pagination {
  return {
    total,
    count,
    per_page: page.perPage,
    current_page: page.page,
    last_page: Math.max(1, Math.ceil(total / page.perPage)),
  };
}

/**
 * ORDER BY for a list: the requested sort (asc unless `order` says otherwise) or the resource's
 * default, always followed by the id in the same direction so pages never overlap or skip.
 */
export function orderByOf<S extends string>(
  query: { sort?: S; order?: SortOrder },
  columns: Record<S, Column | SQL>,
  idColumn: Column,
  fallback: { sort: S; order: SortOrder },
): SQL[] {
  const sort = query.sort ?? fallback.sort;
  const order = query.order ?? (query.sort ? 'asc' : fallback.order);
  const direction = order === 'asc' ? asc : desc;
  return [direction(columns[sort]), direction(idColumn)];
}

/** Accent- and case-insensitive substring match on any of the columns (decisions.md: `search`). */
export function searchCondition(term: string, columns: (Column | SQL)[]): SQL {
  const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const matches = columns.map((column) => sql`search_fold(${column}) like search_fold(${pattern})`);
  return sql`(${sql.join(matches, sql` or `)})`;
}

/**
 * `updated_since` as a timestamptz: with an offset it is that instant; a date or a timestamp
 * without offset is read in the service's time zone.
 */
export function instantOf(value: string, timeZone: string): SQL {
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(value) && value.includes('T');
  return hasOffset ? sql`${value}::timestamptz` : sql`(${value}::timestamp at time zone ${timeZone})`;
}

export const ISO_INSTANT_HINT =
  'Use uma data ou data e hora ISO 8601, por exemplo 2026-11-22 ou 2026-11-22T09:30:00+02:00.';
export const DATE_HINT = 'Use uma data válida no formato YYYY-MM-DD, por exemplo 2026-11-22.';
export const ID_HINT = 'Use um identificador numérico inteiro, por exemplo 42.';
