// Drizzle asks PGlite, on every query, to leave dates, timestamps and intervals as the database's
// text (drizzle converts them itself). PGlite merges such per-query parsers into its 300-odd
// default ones on every call, which was 7% of an embedded read's CPU. Here the same parsers are
// the instance's own, given once, and the per-query copy is dropped. Fixed statements
// (src/db/prepared.ts) read through them too: their table rows are mapped by the columns'
// `mapFromDriverValue`, which expect that text (a timestamp column in mode 'date' makes its Date
// from it, a date column in mode 'string' keeps it), and their raw rows match node-postgres's.
import {
  type ParserOptions,
  type PGlite,
  type QueryOptions,
  type Transaction,
  types,
} from '@electric-sql/pglite';

const asText = (value: string) => value;

/** The types drizzle-orm/pglite reads as text: exactly the list of its PglitePreparedQuery. */
const TEXT_TYPES = [
  types.TIMESTAMP,
  types.TIMESTAMPTZ,
  types.INTERVAL,
  types.DATE,
  1231, // numeric[]
  1115, // timestamp[]
  1185, // timestamptz[]
  1187, // interval[]
  1182, // date[]
];

export const DRIZZLE_TEXT_PARSERS: ParserOptions = Object.fromEntries(
  TEXT_TYPES.map((type) => [type, asText]),
);

type Queryable = Pick<PGlite | Transaction, 'query'>;

/**
 * The client drizzle is given: a ready PGlite that has drizzle's parsers as its own (set after
 * start, when PGlite has installed its array parsers) and ignores them on each query.
 */
export function withDrizzleParsers(client: PGlite): PGlite {
  Object.assign(client.parsers, DRIZZLE_TEXT_PARSERS);
  return withInstanceParsers(client);
}

/** PGlite or one of its transactions, its queries without their per-query parsers. */
function withInstanceParsers<T extends Queryable>(client: T): T {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') {
        return (query: string, params?: unknown[], options?: QueryOptions) =>
          target.query(query, params, options?.parsers ? { ...options, parsers: undefined } : options);
      }
      if (property === 'transaction') {
        return <R>(work: (tx: Transaction) => Promise<R>) =>
          (target as unknown as PGlite).transaction((tx) => work(withInstanceParsers(tx)));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
