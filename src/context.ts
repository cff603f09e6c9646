// The company a piece of work is for, passed explicitly to every repository and service: set by
// authentication for an API request, built by the operator command for application-side work.
import type { Database } from './db/client.js';
import type { ListMemory } from './db/list-memory.js';

export interface RequestContext {
  /** The database or the transaction the work runs in. */
  db: Database;
  /** The company whose data this is; every query is bound to it. */
  companyId: number;
  /** The service's time zone (TZ_NAME): timestamps in responses, bare dates in filters. */
  timeZone: string;
  /** The instance's remembered list totals; without it (operator commands) lists always count. */
  lists?: ListMemory;
}

/**
 * The same company and zone inside a transaction. Without the remembered totals: a count that
 * sees the transaction's own uncommitted writes must never be remembered (it may roll back).
 */
export function inTransaction(context: RequestContext, tx: Database): RequestContext {
  const { lists: _notInTransactions, ...rest } = context;
  return { ...rest, db: tx };
}
