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
// A statement goes straight to the driver connection behind the handle (src/db/client.ts owns
// them), through node-postgres's and PGlite's public calls: on PostgreSQL a named prepared
// statement with rows as arrays, on PGlite a plain query with rows as arrays. Table rows are
// mapped here, column by column with the column's own `mapFromDriverValue`, from the database's
// text for dates, timestamps and intervals (as drizzle's own queries receive them, and as those
// columns expect). Drizzle's layers around a query (tracing spans, its query cache, a new
// prepared-query object per call) were a third of a single read's database time.
import { createHash } from 'node:crypto';
import {
  type Column,
  DrizzleQueryError,
  fillPlaceholders,
  getTableColumns,
  getTableName,
  type Query,
  type SQL,
} from 'drizzle-orm';
import { PgDialect, type PgTable, QueryBuilder } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { connectionOf, type Database, type PostgresStatements, submitQuery } from './client.js';
import { readCacheOf, VERSIONED_TABLES } from './read-cache.js';

const dialect = new PgDialect();

/**
 * node-postgres's parsers for fixed statements: timestamps, dates, intervals and their arrays as
 * the database's text (what the columns' `mapFromDriverValue` expects, and what drizzle's own
 * queries ask for); anything else as node-postgres parses it. PGlite's instance has the same
 * (src/db/pglite-parsers.ts).
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
const PG_TYPES = {
  getTypeParser: (typeId: number, format?: 'text' | 'binary') =>
    TEXT_TYPE_IDS.has(typeId) ? asText : pg.types.getTypeParser(typeId, format),
} as pg.CustomTypesConfig;

/** What a statement's row description sets up in pg's result: the fields and their parsers. */
interface Description {
  fields: unknown[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: unknown;
}

/** The parts of node-postgres's Query (pg/lib/query.js, 8.x) that a described query uses. */
interface DriverQuery {
  name: string;
  callback: unknown;
  _result: Description;
  _accumulateRows: unknown;
  hasBeenParsed(connection: DriverConnection): boolean;
  listeners(event: string): unknown[];
}

interface DriverConnection {
  /** A prototype method of pg's Connection; set on the instance only while it is skipped. */
  describe?: (message: object) => void;
}

const skipDescribe = () => {};

/**
 * The row description of each fixed statement, per driver connection (the statement is prepared
 * per connection, and its columns never change while it exists: PostgreSQL fails the execution
 * instead). A new connection (reconnection, failover) starts empty.
 */
const descriptions = new WeakMap<DriverConnection, Map<string, Description>>();

/**
 * A named prepared statement that asks the server for its row description once per connection:
 * node-postgres asks on every execution and parses the answer again (a tenth of a single read's
 * CPU). Later executions bind and execute only, with the description remembered; everything else
 * (queueing, timeouts, errors, lost connections) is node-postgres's own.
 */
class DescribedQuery extends (pg.Query as unknown as new (config: object) => object) {
  private describedOn: DriverConnection | undefined;

  prepare(connection: DriverConnection): void {
    const query = this as unknown as DriverQuery;
    const description = descriptions.get(connection)?.get(query.name);
    if (!description || !query.hasBeenParsed(connection)) {
      this.describedOn = connection;
      (pg.Query.prototype as unknown as { prepare(c: DriverConnection): void }).prepare.call(
        this,
        connection,
      );
      return;
    }
    // What handleRowDescription would have set up, from the remembered description; then
    // node-postgres's own prepare (bind, execute, sync), without its Describe message.
    Object.assign(query._result, description);
    query._accumulateRows = query.callback || !query.listeners('row').length;
    connection.describe = skipDescribe;
    try {
      (pg.Query.prototype as unknown as { prepare(c: DriverConnection): void }).prepare.call(
        this,
        connection,
      );
    } finally {
      delete connection.describe;
    }
  }

  handleRowDescription(message: unknown): void {
    (pg.Query.prototype as unknown as { handleRowDescription(m: unknown): void }).handleRowDescription.call(
      this,
      message,
    );
    const connection = this.describedOn;
    if (!connection) return;
    const { fields, _parsers, _prebuiltEmptyResultObject } = (this as unknown as DriverQuery)._result;
    const byName = descriptions.get(connection) ?? new Map<string, Description>();
    descriptions.set(connection, byName);
    byName.set((this as unknown as DriverQuery).name, { fields, _parsers, _prebuiltEmptyResultObject });
  }
}

export interface FixedStatement {
  readonly name: string;
  readonly query: Query;
  /** The columns of a whole table row, in the order selected; absent: raw driver rows. */
  readonly columns?: readonly (readonly [key: string, column: Column])[];
  /** Its rows may be remembered where a database keeps a read cache (the embedded PGlite). */
  readonly cacheable?: boolean;
  /** It changes nothing: not counted as a write by the read cache (src/db/read-cache.ts). */
  readonly read: boolean;
}

/** A fixed statement whose rows are mapped table rows: `runFixed` knows their type. */
export interface FixedTableRead<Row> extends FixedStatement {
  readonly columns: readonly (readonly [key: string, column: Column])[];
  /** Never set: only carries the row type. */
  readonly row?: Row;
}

function nameOf(query: Query): string {
  return `s_${createHash('sha1').update(query.sql).digest('base64url')}`;
}

/**
 * A statement written in SQL: every value in `query` is a `sql.placeholder(name)`; raw driver
 * rows. `read`: it changes nothing (declared by its author, never guessed from its text), so the
 * embedded read cache does not count it as a write.
 */
export function fixedStatement(query: SQL, options: { read?: boolean } = {}): FixedStatement {
  const built = dialect.sqlToQuery(query);
  return { name: nameOf(built), query: built, read: options.read === true };
}

/** Whole rows of `table` that match `where` (placeholders for values), mapped as drizzle maps them. */
export function fixedTableRead<T extends PgTable>(table: T, where: SQL): FixedTableRead<T['$inferSelect']> {
  const source: PgTable = table;
  const built = dialect.sqlToQuery(new QueryBuilder().select().from(source).where(where).getSQL());
  // drizzle selects a table's columns in the order getTableColumns lists them.
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>);
  return {
    name: nameOf(built),
    query: built,
    columns,
    read: true,
    cacheable: VERSIONED_TABLES.has(getTableName(table)),
  };
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
  const { query, columns, name, read } = statement;
  const connection = connectionOf(db);
  const params = fillPlaceholders(query.params, values);
  let rows: unknown[][] | Row[];
  try {
    if (connection.kind === 'postgres') {
      // The pool, or the transaction's own connection: parsed and planned once per connection.
      const client = connection.client as PostgresStatements;
      const described = new DescribedQuery({
        name,
        text: query.sql,
        values: params,
        types: PG_TYPES,
        ...(columns ? { rowMode: 'array' } : {}),
      });
      rows = (await submitQuery(client, described)).rows as unknown[][] | Row[];
    } else {
      // A read by declaration is not counted as a write by the read cache.
      const client = read ? connection.reads : connection.client;
      rows = (await client.query(query.sql, params, columns ? { rowMode: 'array' } : undefined)).rows as
        | unknown[][]
        | Row[];
    }
  } catch (error) {
    // Failures look as drizzle's own do: the driver's error is the cause.
    throw new DrizzleQueryError(query.sql, params, error as Error);
  }
  return columns ? (rows as unknown[][]).map((row) => rowOf<Row>(columns, row)) : (rows as Row[]);
}

/** A table row from its values in column order, each as its column maps it (null stays null). */
function rowOf<Row>(columns: readonly (readonly [key: string, column: Column])[], values: unknown[]): Row {
  const row: Record<string, unknown> = {};
  for (let index = 0; index < columns.length; index++) {
    const [key, column] = columns[index] as readonly [string, Column];
    const value = values[index];
    row[key] = value === null ? null : column.mapFromDriverValue(value);
  }
  return row as Row;
}
