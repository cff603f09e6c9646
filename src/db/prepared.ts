// Statements of the busiest paths whose SQL never changes, built once (values as placeholders) and
// run as named prepared statements: no query building on each request, and on PostgreSQL each
// connection parses and plans one once (node-postgres keeps it per connection, PostgreSQL then
// reuses the plan). PGlite runs them as plain queries.
import { createHash } from 'node:crypto';
import type { Query, SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from './client.js';

const dialect = new PgDialect();

export interface FixedStatement {
  readonly name: string;
  readonly query: Query;
}

/** Builds a statement once: every value in `query` is a `sql.placeholder(name)`. */
export function fixedStatement(query: SQL): FixedStatement {
  const built = dialect.sqlToQuery(query);
  return { name: `s_${createHash('sha1').update(built.sql).digest('base64url')}`, query: built };
}

/** The rows of a fixed statement as the driver gives them (like `queryRows`), values by placeholder name. */
export async function runFixed<T>(
  db: Database,
  statement: FixedStatement,
  values: Record<string, unknown>,
): Promise<T[]> {
  const prepared = db._.session.prepareQuery(statement.query, undefined, statement.name, false);
  const result = await prepared.execute(values);
  return (result as { rows: T[] }).rows;
}

/**
 * A drizzle prepared query built once per database handle (the hottest single reads). A
 * transaction is a handle of its own: its statements are built again for it, so a prepared read
 * never escapes a transaction.
 */
export function preparedPerDatabase<T>(build: (db: Database) => T): (db: Database) => T {
  const built = new WeakMap<Database, T>();
  return (db) => {
    let statement = built.get(db);
    if (statement === undefined) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}
