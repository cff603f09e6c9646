// The one way to prepare a statement: its SQL text is built once, at start (values as
// `sql.placeholder`s), and it runs on any database handle or transaction, so building queries
// costs nothing per call (drizzle's query building was a fifth of a read's CPU). On PostgreSQL it
// is a named prepared statement, parsed and planned once per pooled connection; PGlite runs it as
// a plain query.
// - `fixedStatement(sql)`: raw driver rows (dates and timestamps as the database's text on both
//   drivers), for statements written in SQL;
// - `fixedTableRead(table, where)`: whole rows of one table, mapped exactly like drizzle's own
//   `db.select().from(table)` (camelCase keys, Date timestamps). On the embedded PGlite the rows
//   of a versioned table are remembered until it changes (src/db/read-cache.ts): its `where` must
//   depend on that table's rows and the values only (no `now()`, no other table), and callers
//   must not change the rows they get.
//
// On PostgreSQL a statement goes straight to the session's node-postgres client with the very
// configuration drizzle's prepared query would send (its name, rows as arrays, drizzle's own type
// parsers) and its rows are mapped by drizzle's own `mapResultRow`: drizzle's layers around that
// (tracing spans, its query cache, a new prepared-query object per call) were a third of a single
// read's database time.
//
// HOW: through a PRIVATE Drizzle API, `db._.session.prepareQuery` (drizzle's public `.prepare()`
// binds a statement to one handle, so a transaction would build it again on every write). That API
// may change in any release without a type error, so drizzle-orm is pinned to EXACTLY
// `DRIZZLE_VERSION` in package.json, and test/db/prepared.test.ts fails when the installed version
// differs: re-check `prepareQuery` (arguments, result shape) on both drivers before moving the pin.
import { createHash } from 'node:crypto';
import * as orm from 'drizzle-orm';
import {
  DrizzleQueryError,
  fillPlaceholders,
  getTableColumns,
  getTableName,
  is,
  type Query,
  type SelectedFieldsOrdered,
  type SQL,
} from 'drizzle-orm';
import { NodePgSession } from 'drizzle-orm/node-postgres';
import { type AnyPgColumn, PgDialect, type PgTable, QueryBuilder } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Database } from './client.js';
import { readCacheOf, VERSIONED_TABLES } from './read-cache.js';

/** The Drizzle release whose private `prepareQuery` this module was written and tested against. */
export const DRIZZLE_VERSION = '0.45.4';

const dialect = new PgDialect();

/** drizzle's row mapping (exported at run time, absent from its types): columns by position. */
export const mapResultRow = (
  orm as unknown as {
    mapResultRow: (fields: SelectedFieldsOrdered<AnyPgColumn>, row: unknown[], joins: undefined) => unknown;
  }
).mapResultRow;

/**
 * The type parsers drizzle's node-postgres queries carry: timestamps, dates, intervals and their
 * arrays as the database's text (drizzle's columns convert them); anything else as node-postgres.
 */
const TEXT_TYPE_IDS = new Set([
  pg.types.builtins.TIMESTAMPTZ,
  pg.types.builtins.TIMESTAMP,
  pg.types.builtins.DATE,
  pg.types.builtins.INTERVAL,
  1231, // numeric[]
  1115, // timestamp[]
  1185, // timestamptz[]
  1187, // interval[]
  1182, // date[]
]);
const asText = (value: string) => value;
export const DRIZZLE_PG_TYPES = {
  getTypeParser: (typeId: number, format?: 'text' | 'binary') =>
    TEXT_TYPE_IDS.has(typeId) ? asText : pg.types.getTypeParser(typeId, format),
} as pg.CustomTypesConfig;

export interface FixedStatement {
  readonly name: string;
  readonly query: Query;
  /** Drizzle's mapping of a whole table row; absent: raw driver rows. */
  readonly fields?: SelectedFieldsOrdered<AnyPgColumn>;
  /** Its rows may be remembered where a database keeps a read cache (the embedded PGlite). */
  readonly cacheable?: boolean;
}

/** A fixed statement whose rows are mapped table rows: `runFixed` knows their type. */
export interface FixedTableRead<Row> extends FixedStatement {
  readonly fields: SelectedFieldsOrdered<AnyPgColumn>;
  /** Never set: only carries the row type. */
  readonly row?: Row;
}

function nameOf(query: Query): string {
  return `s_${createHash('sha1').update(query.sql).digest('base64url')}`;
}

/** A statement written in SQL: every value in `query` is a `sql.placeholder(name)`; raw driver rows. */
export function fixedStatement(query: SQL): FixedStatement {
  const built = dialect.sqlToQuery(query);
  return { name: nameOf(built), query: built };
}

/** Whole rows of `table` that match `where` (placeholders for values), mapped as drizzle maps them. */
export function fixedTableRead<T extends PgTable>(table: T, where: SQL): FixedTableRead<T['$inferSelect']> {
  const source: PgTable = table;
  const built = dialect.sqlToQuery(new QueryBuilder().select().from(source).where(where).getSQL());
  const fields = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    path: [key],
    field: column as AnyPgColumn,
  }));
  return { name: nameOf(built), query: built, fields, cacheable: VERSIONED_TABLES.has(getTableName(table)) };
}

/** Runs a fixed statement on a handle or a transaction; values by placeholder name. */
export async function runFixed<Row>(
  db: Database,
  statement: FixedStatement | FixedTableRead<Row>,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const cache = statement.cacheable ? readCacheOf(db) : undefined;
  if (cache)
    return cache.read(`${statement.name}|${JSON.stringify(values)}`, () => execute(db, statement, values));
  return execute(db, statement, values);
}

async function execute<Row>(
  db: Database,
  statement: FixedStatement | FixedTableRead<Row>,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const { query, fields, name } = statement;
  const session = db._.session;
  if (is(session, NodePgSession)) {
    // The pool, or the transaction's own connection.
    const client = (session as unknown as { client: pg.Pool | pg.PoolClient }).client;
    const params = fillPlaceholders(query.params, values);
    try {
      if (!fields) {
        const result = await client.query({ name, text: query.sql, types: DRIZZLE_PG_TYPES }, params);
        return result.rows as Row[];
      }
      const result = await client.query<unknown[]>(
        { name, text: query.sql, rowMode: 'array', types: DRIZZLE_PG_TYPES },
        params,
      );
      return result.rows.map((row) => mapResultRow(fields, row, undefined) as Row);
    } catch (error) {
      // Failures look as drizzle's own do: the driver's error is the cause.
      throw new DrizzleQueryError(query.sql, params, error as Error);
    }
  }
  const prepared = session.prepareQuery(query, fields, name, fields !== undefined);
  const result = await prepared.execute(values);
  // With fields drizzle answers the mapped rows; without, the driver's result.
  return fields ? (result as Row[]) : (result as { rows: Row[] }).rows;
}
