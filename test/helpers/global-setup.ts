// Runs once before any test: the services the suite needs must be there, or the run stops
// with a message that says what to start. Nothing is ever skipped silently.
import pg from 'pg';
import { TEST_DATABASE_URL } from './services.js';

export default async function setup(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is required by the test suite and could not be reached at ${TEST_DATABASE_URL} ` +
        `(${(error as Error).message}). Start it (for example: pg_ctlcluster --skip-systemctl-redirect ` +
        '$(ls /etc/postgresql) main start) or set TEST_DATABASE_URL.',
    );
  } finally {
    await client.end().catch(() => {});
  }
}
