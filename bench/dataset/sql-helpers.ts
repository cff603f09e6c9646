// SQL building blocks of the generator. The data is a pure function of the row number: every
// "random" value is a hash of (row, salt), so a data set is the same on every machine and every
// rebuild, whatever plan PostgreSQL picks. Numbers are inlined into the SQL only after being
// checked as integers; text comes only from vocabulary.ts and is quoted here.

/** Helper functions, created in the `bench` schema (dropped again when the load is done). */
export const HELPER_FUNCTIONS = [
  'create schema if not exists bench',
  // Uniform in [0, 1), from a 47-bit slice of PostgreSQL's 64-bit integer hash.
  `create or replace function bench.rnd(n bigint, salt bigint) returns double precision
     language sql immutable parallel safe
     as $$ select (hashint8extended(n, salt) & 140737488355327)::double precision / 140737488355328.0 $$`,
  `create or replace function bench.pick(words text[], n bigint, salt bigint) returns text
     language sql immutable parallel safe
     as $$ select words[1 + floor(bench.rnd(n, salt) * array_length(words, 1))::int] $$`,
  // Lowercase without accents, for e-mail addresses.
  `create or replace function bench.plain(value text) returns text
     language sql immutable parallel safe
     as $$ select translate(lower(value), 'áàâãäéèêëíìîïóòôõöúùûüçñ ', 'aaaaaeeeeiiiiooooouuuucn.') $$`,
  // Id of the k-th (0-based) row of a company in an interleaved table starting after `base`:
  // the noise company owns every 51st row, the main company all the others.
  `create or replace function bench.row_id(base bigint, main boolean, k bigint) returns bigint
     language sql immutable parallel safe
     as $$ select case when main then base + k + 1 + k / 50 else base + 51 * (k + 1) end $$`,
];

export const DROP_HELPERS = 'drop function if exists bench.rnd, bench.pick, bench.plain, bench.row_id';

export function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
}

export function textArray(words: readonly string[]): string {
  return `array[${words.map((word) => `'${word.replaceAll("'", "''")}'`).join(',')}]::text[]`;
}

/** The two companies of a data set and the row counts of one table. */
export interface Layout {
  mainCompany: number;
  noiseCompany: number;
  /** Rows of the table, both companies. */
  total: number;
  /** Id of the row before the first generated one. */
  base: number;
}

/** SQL for the owning company of row `n` (1-based). */
export function companyOf(layout: Layout, n = 'g.n'): string {
  return `(case when ${n} % 51 = 0 then ${int(layout.noiseCompany)} else ${int(layout.mainCompany)} end)`;
}

/**
 * SQL for the id of a random row of `target` owned by the same company as row `n`: `fraction` is
 * an SQL expression in [0, 1) choosing which one.
 */
export function sameCompanyRow(target: Layout, n: string, fraction: string): string {
  const main = target.total - Math.floor(target.total / 51);
  const noise = Math.floor(target.total / 51);
  return `(case when ${n} % 51 = 0
    then bench.row_id(${int(target.base)}, false, floor((${fraction}) * ${int(noise)})::bigint)
    else bench.row_id(${int(target.base)}, true, floor((${fraction}) * ${int(main)})::bigint) end)`;
}

/** A timestamp spread evenly over the last `days` days by row number, plus some jitter. */
export function spreadTimestamp(n: string, total: number, days: number, salt: number): string {
  return `(now() - interval '${int(days)} days' + (${n}::double precision / ${int(total)}) * interval '${int(days - 1)} days' + bench.rnd(${n}, ${int(salt)}) * interval '20 hours')`;
}
