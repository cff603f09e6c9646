// Statements of the hottest single reads, built once per database handle instead of per call
// (drizzle's query building was about a fifth of a read's CPU). On PostgreSQL each is also a
// named prepared statement, parsed once per pooled connection. A transaction is a handle of its
// own: its statements are built again for it, so a prepared read never escapes a transaction.
import type { Database } from './client.js';

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
