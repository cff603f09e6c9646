// Statements built once instead of on every call (drizzle's query building was a fifth of a read's
// CPU), two ways:
// - `fixedStatement` + `runFixed`: SQL text fixed at start (values as placeholders), raw driver
//   rows, usable on any handle or transaction: the writes' statements.
// - `preparedPerDatabase`: a drizzle `.prepare()` query with drizzle's own row mapping, built once
//   per handle: the hottest single reads.
// On PostgreSQL both are named prepared statements, parsed and planned once per pooled connection;
// PGlite runs them as plain queries.
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
 * A drizzle prepared query built once per database handle. A transaction is a handle of its own:
 * its statements are built again for it, so a prepared read never escapes a transaction.
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
