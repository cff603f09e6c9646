// Statements whose SQL text never changes, run as named prepared statements: on PostgreSQL each
// connection parses and plans one once (node-postgres keeps it per connection, PostgreSQL then
// reuses the plan), instead of on every request. PGlite runs them as plain queries.
import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from './client.js';

const dialect = new PgDialect();

/**
 * The rows of `query` as the driver gives them (like `queryRows`), through a prepared statement
 * named after its text. Only for SQL whose text is the same on every call (values as
 * parameters): each distinct text becomes a statement on every connection that runs it.
 */
export async function preparedRows<T>(db: Database, query: SQL): Promise<T[]> {
  const built = dialect.sqlToQuery(query);
  const name = `s_${createHash('sha1').update(built.sql).digest('base64url')}`;
  const result = await db._.session.prepareQuery(built, undefined, name, false).execute();
  return (result as { rows: T[] }).rows;
}
