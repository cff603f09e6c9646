// Admin access to the PostgreSQL server the bench runs on: the bench database's name and URL,
// creating and dropping it, and one-off queries. Plain `pg`, nothing from src/.
import pg from 'pg';

/** Server the bench uses; override with BENCH_PG_URL (a URL of any database on that server). */
export const serverUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The data set's database: partner_bench_<N>, or BENCH_DATABASE when set (e.g. a copy made with
 * `createdb -T partner_bench_1000000 <copy>` to measure a migration without touching the original).
 */
export function benchDatabaseName(invoices: number): string {
  return process.env.BENCH_DATABASE || `partner_bench_${invoices}`;
}

export function databaseUrl(database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs `work` with one connected client and always closes it. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // Plans of the generator print nothing; notices (e.g. "does not exist, skipping") are noise.
  client.on('notice', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function databaseExists(database: string): Promise<boolean> {
  return withClient(serverUrl, async (client) => {
    const result = await client.query('select 1 from pg_database where datname = $1', [database]);
    return result.rowCount === 1;
  });
}

export async function dropDatabase(database: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`drop database if exists "${database}" with (force)`));
}

export async function createDatabase(database: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`create database "${database}"`));
}

export async function queryRows<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  return withClient(url, async (client) => (await client.query(text, values)).rows as T[]);
}
