// Opens the one database the service uses: PostgreSQL through a pool when a URL is given,
// otherwise the embedded PGlite persisted in a directory (or in memory, for tests).
import { PGlite, type PGliteOptions, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Tracer } from '@opentelemetry/api';
import { DrizzleQueryError, type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { type DatabaseTimeouts, DEFAULT_DATABASE_TIMEOUTS } from '../config.js';
import { traceStatements } from '../tracing/statements.js';
import { createPrivateDir, restrictDataDir } from './data-dir.js';
import { describeDatabaseError } from './errors.js';
import { withDrizzleParsers } from './pglite-parsers.js';
import { attachReadCache, createReadCache, readCacheOf, trackWrites, WriteTracker } from './read-cache.js';

/**
 * A database handle or a transaction. Without drizzle's relational schema: nothing uses
 * `db.query.*`, and a handle without it is cheap to create for each transaction.
 */
export type Database = Omit<PgDatabase<PgQueryResultHKT>, 'transaction'> & {
  /** The same as `runInTransaction(this, work)`: a transaction, or a savepoint inside one. */
  transaction<T>(work: (tx: Database) => Promise<T>): Promise<T>;
};

export type StorageTarget =
  | { kind: 'postgres'; url: string; poolSize?: number; timeouts?: DatabaseTimeouts }
  | {
      kind: 'pglite';
      dataDir: string | null /* null: in memory */;
      /** Starts as a copy of this dump (PGlite's dumpDataDir) instead of a new cluster (tests). */
      loadDataDir?: Blob;
      /** With tracing on: each statement made inside a traced piece of work is a span (src/tracing/). */
      tracer?: Tracer;
    };

export interface DatabaseHandle {
  db: Database;
  kind: StorageTarget['kind'];
  /** Human description without secrets, for logs and the CLI. */
  description: string;
  /** The node-postgres pool behind `db` (PostgreSQL only), for work that needs one session. */
  pool?: pg.Pool;
  /**
   * Calls `onNotify` with its payload on every NOTIFY of `channel`, and without one whenever
   * delivery may have had a gap (e.g. a lost connection, a reconnection); resolves to the function that stops listening, once the first
   * attempt to listen has ended (bounded), so that an instance hears changes before it serves.
   */
  listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
  /**
   * The embedded database in a directory only: runs `work` on that directory while its files are
   * complete and nothing writes them (after a checkpoint, with every other statement waiting), so
   * that a copy of the files is a consistent database.
   */
  whileQuiescent?<T>(work: (dataDir: string) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Every PGlite the project opens (also the benchmark's): the extensions the migrations need, and
 * 16 MB of shared buffers instead of PostgreSQL's 128 MB. PGlite touches all of them at start, so
 * they were a third of the embedded server's memory; the files stay in the OS cache either way,
 * and repeated single reads are answered from the read cache (src/db/read-cache.ts) instead.
 */
export const PGLITE_OPTIONS = {
  extensions: { pg_trgm },
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
} satisfies PGliteOptions;

// Postgres `date` stays 'YYYY-MM-DD' and `numeric` stays a string: never a JS Date or float.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);

export async function openDatabase(target: StorageTarget): Promise<DatabaseHandle> {
  if (target.kind === 'postgres') {
    const timeouts = target.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
    // Every wait is bounded: a statement, a lock (a row held by a frozen or slow instance), a
    // transaction whose client stopped talking (ended by the server, which frees its locks), and
    // the wait for a free connection of this pool.
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      statement_timeout: timeouts.statementTimeoutMs,
      lock_timeout: timeouts.lockTimeoutMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
      connectionTimeoutMillis: timeouts.poolAcquireTimeoutMs,
      // A server that vanished without closing the connection (its machine gone) is noticed.
      keepAlive: true,
    });
    // A broken idle connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // Nor one that breaks while checked out (PostgreSQL restarted between two queries of a
    // transaction): the holder's next query fails, and the pool drops the client on release.
    // One whose server answers but is no longer the primary is released with its error by its
    // transaction (TransactionConnection below); a failed statement outside one, by the pool.
    pool.on('connect', (client) => {
      client.on('error', () => {});
    });
    const db = ownedHandle({ kind: 'postgres', client: pool, depth: 0 });
    const url = new URL(target.url);
    return {
      db,
      kind: 'postgres',
      description: `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`,
      pool,
      listen: async (channel, onNotify) => listenOnPostgres(target.url, channel, onNotify),
      close: () => pool.end(),
    };
  }
  if (target.dataDir) createPrivateDir(target.dataDir);
  const client = new PGlite({
    ...PGLITE_OPTIONS,
    ...(target.dataDir ? { dataDir: target.dataDir } : {}),
    ...(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}),
  });
  await client.waitReady;
  // PGlite unpacks a new database with files open to everyone: private, like the rest.
  if (target.dataDir) restrictDataDir(target.dataDir);
  // Every change goes through this client: counted, so that single reads can be remembered
  // exactly until the next one (src/db/read-cache.ts).
  const tracker = new WriteTracker();
  const parsed = withDrizzleParsers(client);
  const direct = target.tracer ? traceStatements(parsed, target.tracer) : parsed;
  const db = ownedHandle({
    kind: 'pglite',
    client: trackWrites(direct, tracker),
    reads: direct,
    depth: 0,
    ...(target.tracer ? { tracer: target.tracer } : {}),
  });
  const readVersions = async () =>
    (await client.query<{ versions: string }>(DATA_VERSIONS_STATE)).rows[0]?.versions ?? '';
  attachReadCache(db, createReadCache(tracker, readVersions));
  return {
    db,
    kind: 'pglite',
    description: target.dataDir ? `embedded PGlite in ${target.dataDir}` : 'embedded PGlite in memory',
    listen: (channel, onNotify) => client.listen(channel, onNotify),
    // In a transaction of its own: every other statement waits for PGlite's one connection, and
    // the checkpoint has written every change to the files (PGlite writes them straight to disk).
    ...(target.dataDir
      ? {
          whileQuiescent: <T>(work: (dataDir: string) => Promise<T>) =>
            client.transaction(async (tx) => {
              await tx.exec('checkpoint');
              return work(target.dataDir as string);
            }),
        }
      : {}),
    close: () => client.close(),
  };
}

/**
 * The driver connection behind a drizzle handle this module gave out, so that statements and
 * transactions use node-postgres's and PGlite's public calls instead of drizzle's internals.
 * `depth`: 0 outside a transaction, 1 in one, more in its savepoints.
 */
export type Connection =
  | {
      kind: 'postgres';
      /** The pool outside a transaction (it releases a connection with a failed statement's error). */
      client: pg.Pool | TransactionConnection;
      depth: number;
    }
  | {
      kind: 'pglite';
      /** Every call through it counts as a possible write (src/db/read-cache.ts). */
      client: PGlite | Transaction;
      /** The same database, not counted: for statements that are reads by declaration. */
      reads: PGlite | Transaction;
      depth: number;
      /** Traces the statements of its transactions too. */
      tracer?: Tracer;
    };

/** How statements are run on a PostgreSQL connection: the pool's and a transaction's `query`. */
export type PostgresStatements = Pick<TransactionConnection, 'query'>;

const connections = new WeakMap<object, Connection>();

/** The connection behind `db`; every handle comes from this module (openDatabase, transactions). */
export function connectionOf(db: Database): Connection {
  const connection = connections.get(db);
  if (!connection) throw new Error('not a database handle of src/db/client.ts');
  return connection;
}

/** A drizzle handle over `connection`, known to this module; its `transaction` is ours. */
function ownedHandle(connection: Connection): Database {
  // Drizzle only runs `query` on the client it is given.
  const db = (connection.kind === 'postgres'
    ? drizzleNodePg({ client: connection.client as pg.Pool })
    : drizzlePglite({ client: connection.client as PGlite })) as unknown as Database;
  connections.set(db, connection);
  db.transaction = (work) => runInTransaction(db, work);
  return db;
}

/**
 * `db` for work that only reads, declared so by the code that issues it (list reads): on the
 * embedded PGlite its statements are not counted as writes by the read cache, so they do not make
 * the next single read check data_versions again. Nothing may be written through it: a write
 * would not make the cache forget. Elsewhere (PostgreSQL, a transaction) it is `db` itself.
 */
export function readOnly(db: Database): Database {
  const connection = connectionOf(db);
  if (connection.kind !== 'pglite' || connection.depth > 0 || connection.client === connection.reads)
    return db;
  let reader = readers.get(db);
  if (!reader) {
    reader = ownedHandle({ kind: 'pglite', client: connection.reads, reads: connection.reads, depth: 0 });
    const cache = readCacheOf(db);
    if (cache) attachReadCache(reader, cache);
    readers.set(db, reader);
  }
  return reader;
}

const readers = new WeakMap<Database, Database>();

/**
 * Runs `work` in a transaction of `db` (a savepoint when `db` is already one), committed when
 * it resolves and rolled back when it throws. On PostgreSQL it holds one pooled connection
 * throughout; a connection whose rollback failed is not given back to the pool.
 */
export async function runInTransaction<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  const connection = connectionOf(db);
  if (connection.depth > 0) return inSavepoint(connection, work);
  if (connection.kind === 'pglite') {
    // Uncounted, its writes would not make the read cache forget.
    if (connection.client === connection.reads) throw new Error('no transaction through readOnly(db)');
    const client = connection.client as PGlite;
    const { tracer } = connection;
    return client.transaction((plain) => {
      const tx = tracer ? traceStatements(plain, tracer) : plain;
      return work(ownedHandle({ kind: 'pglite', client: tx, reads: tx, depth: 1 }));
    });
  }
  const pooled = await (connection.client as pg.Pool).connect();
  const client = new TransactionConnection(pooled);
  /** Set when the connection's state is unknown: it is then closed, never reused. */
  let broken: Error | undefined;
  try {
    await command(client, 'begin').catch((failure: Error) => {
      broken = failure;
      throw failure;
    });
    try {
      const result = await work(ownedHandle({ kind: 'postgres', client, depth: 1 }));
      await command(client, 'commit');
      return result;
    } catch (error) {
      // As drizzle did: a failed rollback is the error seen.
      await command(client, 'rollback').catch((failure: Error) => {
        broken = failure;
        throw failure;
      });
      throw error;
    }
  } finally {
    // Released with an error, the pool closes the connection instead of handing it out again.
    pooled.release(client.lost ?? broken);
  }
}

/**
 * The one pooled connection of a PostgreSQL transaction, as its handles run statements on it
 * (drizzle's, `runFixed`'s, the transaction commands). A failure that shows the server lost (gone,
 * going, or no longer the primary: src/db/errors.ts) is kept, so that the connection is released
 * with it and closed: after a failover every new connection leads where the URL leads now. The
 * pool tells apart a connection that broke by itself, but not one whose server still answers as a
 * standby; the caller still gets the error.
 */
export class TransactionConnection {
  /** The first failure of this connection that showed its server lost. */
  lost: Error | undefined;

  constructor(private readonly client: pg.PoolClient) {}

  query<Row extends pg.QueryResultRow>(
    statement: string | pg.QueryConfig | pg.QueryArrayConfig,
    values?: unknown[],
  ): Promise<pg.QueryResult<Row>> {
    return this.judged(this.client.query<Row>(statement as pg.QueryConfig, values));
  }

  /** A node-postgres query object (a Submittable), answered through its callback. */
  submit(query: object): Promise<pg.QueryResult> {
    return this.judged(submitTo(this.client, query));
  }

  /** The statement's answer; its failure kept first when it shows the server lost. */
  private async judged<T>(answer: Promise<T>): Promise<T> {
    try {
      return await answer;
    } catch (error) {
      if (!this.lost && describeDatabaseError(error).dropConnection) this.lost = error as Error;
      throw error;
    }
  }
}

/** pg's Client and Pool take a query object with a callback as the last argument, as for text. */
function submitTo(client: pg.Pool | pg.PoolClient, query: object): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    (
      client.query as (query: object, callback: (error: Error | null, result: pg.QueryResult) => void) => void
    ).call(client, query, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * Runs a node-postgres query object (src/db/prepared.ts's described statements) on the pool or on
 * a transaction's connection, as `query` runs a query's text and values.
 */
export function submitQuery(client: PostgresStatements, query: object): Promise<pg.QueryResult> {
  return client instanceof TransactionConnection ? client.submit(query) : submitTo(client as pg.Pool, query);
}

async function inSavepoint<T>(connection: Connection, work: (tx: Database) => Promise<T>): Promise<T> {
  const depth = connection.depth + 1;
  const name = `sp${depth}`;
  const savepoint = ownedHandle({ ...connection, depth } as Connection);
  await command(connection.client, `savepoint ${name}`);
  try {
    const result = await work(savepoint);
    await command(connection.client, `release savepoint ${name}`);
    return result;
  } catch (error) {
    await command(connection.client, `rollback to savepoint ${name}`);
    throw error;
  }
}

/** A transaction command; a failure looks as drizzle's own did (the driver's error the cause). */
async function command(client: Connection['client'], text: string): Promise<void> {
  try {
    await (client as PostgresStatements).query(text);
  } catch (error) {
    throw new DrizzleQueryError(text, [], error as Error);
  }
}

/** Every company's data version, as one text: equal texts, no change to the versioned tables. */
const DATA_VERSIONS_STATE = `select coalesce(string_agg(company_id || ':' || version, ',' order by company_id), '') as versions
  from data_versions`;

/** Reconnection delays of the LISTEN connection: doubling from the first, never above the last. */
const RECONNECT_FIRST_DELAY_MS = 250;
const RECONNECT_MAX_DELAY_MS = 2000;
const LISTEN_CONNECT_TIMEOUT_MS = 5000;
/** How often the LISTEN connection is asked a question, and how long it may take to answer. */
const LISTEN_HEARTBEAT_MS = 5000;
const LISTEN_HEARTBEAT_TIMEOUT_MS = 3000;

/**
 * LISTEN on a connection of its own (outside the pool), reconnecting with a bounded backoff when
 * it is lost (a failover: to wherever the URL leads now). Every (re)connection and every loss
 * counts as a notification: what was sent during the gap is not lost. A heartbeat notices a
 * server that vanished without closing the connection (or a connection left on a server that is
 * no longer the primary, where no notification would ever come).
 */
async function listenOnPostgres(
  url: string,
  channel: string,
  onNotify: (payload?: string) => void,
): Promise<() => Promise<void>> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let stopped = false;
  let current: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let delay = RECONNECT_FIRST_DELAY_MS;
  const reconnectLater = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, RECONNECT_MAX_DELAY_MS);
  };
  const heartbeat = setInterval(() => {
    const client = current;
    if (!client || stopped) return;
    // A failed or late answer ends the connection: 'end' reconnects.
    client
      .query<{ replica: boolean }>('select pg_is_in_recovery() as replica')
      .then((result) => {
        if (result.rows[0]?.replica) throw new Error('not the primary');
      })
      .catch(() => client.end().catch(() => {}));
  }, LISTEN_HEARTBEAT_MS);
  heartbeat.unref();
  const connect = async () => {
    // Bounded like every other wait: an unreachable server is retried, not waited on.
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS,
      query_timeout: LISTEN_HEARTBEAT_TIMEOUT_MS,
      keepAlive: true,
    });
    let listening = false;
    client.on('error', () => {});
    client.on('end', () => {
      if (current === client) current = null;
      if (!listening) return;
      onNotify();
      reconnectLater();
    });
    client.on('notification', (message) => onNotify(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN "${channel}"`);
      if (stopped) {
        await client.end();
        return;
      }
      listening = true;
      current = client;
      delay = RECONNECT_FIRST_DELAY_MS;
      onNotify();
    } catch {
      await client.end().catch(() => {});
      reconnectLater();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(heartbeat);
    await current?.end().catch(() => {});
  };
}

/** Rows of a raw `db.execute(sql...)`, whichever driver answered. */
export async function queryRows<T>(db: Database, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export { sql };

/**
 * Whether `db` is a PostgreSQL server's (sessions of many processes), not the embedded PGlite: the
 * one question for the driver kind outside this module (`connectionOf` is for running statements).
 */
export function isPostgres(db: Database): boolean {
  return connectionOf(db).kind === 'postgres';
}
