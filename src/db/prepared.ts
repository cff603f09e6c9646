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
import { createRequire } from 'node:module';
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

/** node-postgres's own conversion of a value for the wire (what its queries, and pg-cursor's, bind). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): unknown;
};

/** A statement's columns, as its row description gave them once, and each one's parser. */
interface Description {
  fields: pg.FieldDef[];
  names: string[];
  parsers: ((text: string) => unknown)[];
}

/**
 * The side of node-postgres's connection a query object talks to (the Submittable contract, as
 * pg-cursor uses it): the extended protocol's messages, and the statements it has parsed.
 */
interface DriverConnection {
  stream: { cork?(): void; uncork?(): void };
  parsedStatements: Record<string, string | undefined>;
  parse(message: { text: string; name: string; types: number[] }): void;
  bind(message: { statement: string; values: unknown[]; valueMapper(value: unknown): unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
}

/**
 * The row description of each fixed statement, per driver connection: the statement is prepared
 * per connection, and its columns do not change while it exists (PostgreSQL fails an execution
 * instead). A new connection (reconnection, failover) starts empty.
 */
const descriptions = new WeakMap<DriverConnection, Map<string, Description>>();

type Answer = (error: Error | null, result?: { rows: unknown[] }) => void;

/**
 * A named prepared statement run as a node-postgres query object (a Submittable): it asks the
 * server for the row description once per connection, where node-postgres's Query asks, parses
 * and sets it up again on every execution (a tenth of a single read's CPU). The pool, the queue,
 * query timeouts and lost connections stay node-postgres's; the messages and values are the ones
 * its Query sends (bind through its own prepareValue).
 */
class DescribedStatement {
  private description: Description | undefined;
  private connection: DriverConnection | undefined;
  private readonly rows: unknown[] = [];
  private failure: Error | undefined;

  constructor(
    readonly name: string,
    readonly text: string,
    private readonly values: unknown[],
    private readonly asArrays: boolean,
    public callback?: Answer,
  ) {}

  submit(connection: DriverConnection): void {
    this.connection = connection;
    this.description = descriptions.get(connection)?.get(this.name);
    // One write for all the messages, as node-postgres does.
    connection.stream.cork?.();
    try {
      if (connection.parsedStatements[this.name] === undefined) {
        connection.parse({ text: this.text, name: this.name, types: [] });
      }
      connection.bind({ statement: this.name, values: this.values, valueMapper: prepareValue });
      if (!this.description) connection.describe({ type: 'P', name: '' });
      connection.execute({ portal: '' });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
  }

  handleRowDescription(message: { fields: pg.FieldDef[] }): void {
    const { fields } = message;
    const description = {
      fields,
      names: fields.map((field) => field.name),
      parsers: fields.map(
        (field) => PG_TYPES.getTypeParser(field.dataTypeID, 'text') as (text: string) => unknown,
      ),
    };
    this.description = description;
    const connection = this.connection!;
    const byName = descriptions.get(connection) ?? new Map<string, Description>();
    descriptions.set(connection, byName);
    byName.set(this.name, description);
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.failure) return;
    const { parsers, names } = this.description!;
    try {
      const values = message.fields.map((text, index) => (text === null ? null : parsers[index]!(text)));
      if (this.asArrays) {
        this.rows.push(values);
      } else {
        const row: Record<string, unknown> = {};
        for (let index = 0; index < names.length; index++) row[names[index]!] = values[index];
        this.rows.push(row);
      }
    } catch (error) {
      // As node-postgres: the rest of the answer is read, then the query fails.
      this.failure = error as Error;
    }
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleError(error: Error): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(this.failure ?? error);
  }

  handleReadyForQuery(): void {
    if (this.failure) {
      this.handleError(this.failure);
      return;
    }
    const callback = this.callback;
    this.callback = undefined;
    callback?.(null, { rows: this.rows });
  }

  handleCopyInResponse(): void {}

  handleCopyData(): void {}
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
      const described = new DescribedStatement(name, query.sql, params, columns !== undefined);
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
