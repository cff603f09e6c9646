// The company a piece of work is for, passed explicitly to every repository and service: set by
// authentication for an API request, built by the operator command for application-side work.
import type { Database } from './db/client.js';

export interface RequestContext {
  /** The database or the transaction the work runs in. */
  db: Database;
  /** The company whose data this is; every query is bound to it. */
  companyId: number;
  /** The service's time zone (TZ_NAME): timestamps in responses, bare dates in filters. */
  timeZone: string;
}

/** The same company and zone inside a transaction. */
export function inTransaction(context: RequestContext, tx: Database): RequestContext {
  return { ...context, db: tx };
}
