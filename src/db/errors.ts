// What a database error means, decided once for every caller: the API's answer (src/http/
// error-handler.ts), readiness (src/monitoring/readiness.ts), the command line's message
// (src/cli/main.ts) and the pool, which drops a connection that met a server that is gone or no
// longer the primary (src/db/client.ts).

/**
 * - `retryable`: a bounded wait expired or the transaction lost a conflict; the server is there
 *   and nothing was committed: the same request again (same Idempotency-Key) may succeed.
 * - `unavailable`: the server cannot be reached, is stopping or starting, or is no longer the
 *   primary (a failover): nothing was committed; retry once it is back.
 * - `setup`: the server answers but is not usable as configured (no such database, a wrong
 *   password, no migration applied): an operator must act.
 * - `input`: the data broke a constraint or a type (a check the application missed).
 * - `bug`: anything else.
 */
export type DatabaseErrorKind = 'retryable' | 'unavailable' | 'setup' | 'input' | 'bug';

export interface DatabaseVerdict {
  kind: DatabaseErrorKind;
  /** A stable name for logs and tests, e.g. `lock_timeout`, `read_only`, `connection_refused`. */
  label: string;
  /** A short explanation for operators: never SQL, never a connection string. */
  reason: string;
  /** The SQLSTATE, system error code or driver message that decided it (null: none known). */
  code: string | null;
  /** The request may be retried as it is: the API answers 503 with Retry-After, never 500. */
  retryable: boolean;
  /** The connection that saw the error must not serve again (its server is gone, or a replica now). */
  dropConnection: boolean;
}

type Entry = readonly [kind: DatabaseErrorKind, label: string, reason: string];

const BY_CODE: Record<string, Entry> = {
  // Bounded waits (src/config.ts DB_*_TIMEOUT_MS) and conflicts.
  '55P03': ['retryable', 'lock_timeout', 'a lock was not granted in time'],
  '57014': ['retryable', 'statement_timeout', 'a statement took too long'],
  '25P03': ['retryable', 'transaction_ended', 'a transaction stayed idle too long'],
  '40001': ['retryable', 'serialization_failure', 'a concurrent transaction conflicted'],
  '40P01': ['retryable', 'deadlock', 'a deadlock was broken'],
  // The server gone, going, coming, or no longer the primary.
  '57P01': ['unavailable', 'admin_shutdown', 'the database server is shutting down'],
  '57P02': ['unavailable', 'crash_shutdown', 'the database server crashed'],
  '57P03': ['unavailable', 'cannot_connect_now', 'the database is starting up'],
  '53300': ['unavailable', 'too_many_connections', 'too many connections'],
  '25006': ['unavailable', 'read_only', 'the database is read-only (not the primary)'],
  '08000': ['unavailable', 'connection_exception', 'connection failed'],
  '08001': ['unavailable', 'connection_not_established', 'connection could not be established'],
  '08003': ['unavailable', 'connection_does_not_exist', 'connection does not exist'],
  '08004': ['unavailable', 'connection_rejected', 'connection rejected by the server'],
  '08006': ['unavailable', 'connection_failure', 'connection failure'],
  ECONNREFUSED: ['unavailable', 'connection_refused', 'connection refused'],
  ECONNRESET: ['unavailable', 'connection_reset', 'connection reset'],
  ETIMEDOUT: ['unavailable', 'connection_timed_out', 'connection timed out'],
  EPIPE: ['unavailable', 'connection_broken', 'connection broken'],
  EHOSTUNREACH: ['unavailable', 'host_unreachable', 'host unreachable'],
  ENETUNREACH: ['unavailable', 'network_unreachable', 'network unreachable'],
  ENOTFOUND: ['unavailable', 'host_not_found', 'host not found'],
  EAI_AGAIN: ['unavailable', 'host_lookup_failed', 'host name lookup failed'],
  // Usable only once an operator acts.
  '3D000': ['setup', 'no_database', 'the database does not exist'],
  '28P01': ['setup', 'authentication_failed', 'authentication failed'],
  '28000': ['setup', 'authentication_failed', 'authentication failed'],
  '42P01': ['setup', 'not_migrated', 'no migration has been applied'],
  '3F000': ['setup', 'not_migrated', 'no migration has been applied'],
};

/** node-postgres's own messages (no code) when a connection is lost or cannot be had in time. */
const BY_MESSAGE: Record<string, Entry> = {
  'timeout exceeded when trying to connect': ['retryable', 'pool_timeout', 'no free connection in time'],
  'Connection terminated unexpectedly': ['unavailable', 'connection_closed', 'connection closed'],
  'Connection terminated': ['unavailable', 'connection_closed', 'connection closed'],
  'Connection terminated due to connection timeout': [
    'unavailable',
    'connection_timed_out',
    'connection timed out',
  ],
  'Client has encountered a connection error and is not queryable': [
    'unavailable',
    'connection_closed',
    'connection closed',
  ],
  'Client was closed and is not queryable': ['unavailable', 'connection_closed', 'connection closed'],
};

/** SQLSTATE classes of bad data: 22 data exception, 23 integrity constraint violation. */
const INPUT_CLASSES = new Set(['22', '23']);

function verdictOf([kind, label, reason]: Entry, code: string): DatabaseVerdict {
  return {
    kind,
    label,
    reason,
    code,
    retryable: kind === 'retryable' || kind === 'unavailable',
    // A transaction idle too long has its session ended by the server, like a shutdown's.
    dropConnection: kind === 'unavailable' || label === 'transaction_ended',
  };
}

/**
 * A missing database is named as PostgreSQL names it (`database "x" does not exist`: the server's
 * words, never the URL, so never a password), so that an operator sees which one.
 */
function named(verdict: DatabaseVerdict, message: string | undefined): DatabaseVerdict {
  const name =
    verdict.label === 'no_database' && message ? /^database "(.*)" does not exist$/.exec(message) : null;
  return name ? { ...verdict, reason: `${verdict.reason}: "${name[1]}"` } : verdict;
}

/**
 * Every error reachable from `error`: itself, its `cause` chain (drizzle wraps the driver's) and
 * the members of an AggregateError (a connection to every address of a host name failed), breadth
 * first and bounded.
 */
function* reachable(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 32) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    yield current as { code?: unknown; message?: unknown };
    queue.push((current as { cause?: unknown }).cause);
    const nested = (current as { errors?: unknown }).errors;
    if (Array.isArray(nested)) queue.push(...nested);
  }
}

/** What a failure of a database call means; the first known code or message found decides. */
export function describeDatabaseError(error: unknown): DatabaseVerdict {
  let input: DatabaseVerdict | null = null;
  for (const candidate of reachable(error)) {
    const code = typeof candidate.code === 'string' ? candidate.code : undefined;
    const message = typeof candidate.message === 'string' ? candidate.message : undefined;
    const byCode = code === undefined ? undefined : BY_CODE[code];
    if (byCode && code) return named(verdictOf(byCode, code), message);
    const byMessage = message === undefined ? undefined : BY_MESSAGE[message];
    if (byMessage && message) return verdictOf(byMessage, message);
    if (!input && code && /^[0-9A-Z]{5}$/.test(code) && INPUT_CLASSES.has(code.slice(0, 2))) {
      input = verdictOf(['input', 'invalid_data', 'the data broke a constraint or a type'], code);
    }
  }
  return (
    input ?? {
      kind: 'bug',
      label: 'unexpected',
      reason: 'unexpected failure',
      code: null,
      retryable: false,
      dropConnection: false,
    }
  );
}

/** Whether a database error (possibly wrapped by drizzle) is a unique violation of `constraint`. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (const candidate of reachable(error) as Generator<{
    code?: unknown;
    constraint?: unknown;
    message?: unknown;
  }>) {
    if (candidate.code === '23505') {
      return candidate.constraint === constraint || String(candidate.message ?? '').includes(constraint);
    }
  }
  return false;
}
