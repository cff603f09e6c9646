// The one context of a piece of work: which database (or transaction), which company, which clock,
// and who is acting. Built at the edge (authentication for an API request, the dispatcher for an
// operator command) and passed explicitly to every repository, service, event and audit record.
import type { Database } from './db/client.js';
import type { ListMemory } from './lists/memory.js';

/** An API request: set at authentication; the Idempotency-Key is known from step 9 on (writes). */
export interface ApiKeyActor {
  kind: 'api_key';
  apiKeyId: number;
  /** The last 4 characters of the key presented: enough to recognise it, never the secret. */
  last4: string;
  requestId: string;
  idempotencyKey: string | null;
}

/** A person at the command line (or the admin socket): --actor or the OS user, and the command. */
export interface OperatorActor {
  kind: 'operator';
  name: string;
  /** As typed, e.g. `invoices issue`. */
  command: string;
}

/** The service itself (the webhook worker, start-up work), named after the part that acts. */
export interface SystemActor {
  kind: 'system';
  name: string;
}

export type Actor = ApiKeyActor | OperatorActor | SystemActor;

/**
 * Who acts, on which database, by which clock: a context whose company is not known yet (an
 * operator's `invoices issue 12` learns it from the invoice). `forCompany` completes it.
 */
export interface ActingContext {
  /** The database or the transaction the work runs in. */
  db: Database;
  /** The service's time zone (TZ_NAME): timestamps shown, bare dates, "today". */
  timeZone: string;
  actor: Actor;
}

/** The company context: every query of a repository or service is bound to `companyId`. */
export interface CompanyContext extends ActingContext {
  companyId: number;
  /** The instance's remembered list totals; without it (operator commands) lists always count. */
  lists?: ListMemory;
}

export function forCompany(context: ActingContext, companyId: number): CompanyContext {
  return { db: context.db, timeZone: context.timeZone, actor: context.actor, companyId };
}

/**
 * The same context inside a transaction. Without the remembered totals: a count that sees the
 * transaction's own uncommitted writes must never be remembered (it may roll back).
 */
export function inTransaction<C extends ActingContext>(context: C, tx: Database): C {
  const { lists: _notInTransactions, ...rest } = context as C & { lists?: ListMemory };
  return { ...rest, db: tx } as C;
}
