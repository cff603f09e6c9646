// The query-string half of every list: page, per_page, sort and order with the defaults of
// decisions.md, and the hints of `invalid_query_parameter`. The SQL half is src/lists/page.ts.
import { type TProperties, Type } from 'typebox';
import type { PageRequest } from '../lists/page.js';
import { MAX_INT32 } from '../values.js';
import { StringEnum } from './schema-helpers.js';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;
/** Highest page number accepted (a page past the last one is simply empty). */
export const MAX_PAGE = MAX_INT32;

/** Query schema of a list: the shared paging/sorting parameters plus the resource's filters. */
export function listQuerySchema<const S extends readonly string[], P extends TProperties>(
  sortValues: S,
  filters: P,
) {
  return Type.Object(
    {
      // Bounded so that the offset of the page stays a number the database can take.
      page: Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE,
        default: 1,
        description: `Use um número inteiro entre 1 e ${MAX_PAGE}.`,
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
    // Unknown query parameters are refused before the schema judges the known ones, naming them
    // and listing these (src/http/input-checks.ts).
    { additionalProperties: true },
  );
}

export function pageRequest(query: { page?: number; per_page?: number }): PageRequest {
  const page = query.page ?? 1;
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Examples that work as pasted into a URL: `Z`, or the offset's `+` written `%2B` (a bare `+` reads as a space). */
export const ISO_INSTANT_HINT =
  'Use uma data ou data e hora ISO 8601, por exemplo 2026-11-22, 2026-11-22T07:30:00Z ou 2026-11-22T09:30:00%2B02:00 (num URL, o "+" de um fuso escreve-se %2B).';
export const DATE_HINT = 'Use uma data válida no formato YYYY-MM-DD, por exemplo 2026-11-22.';
export const ID_HINT = 'Use um identificador numérico inteiro, por exemplo 42.';
