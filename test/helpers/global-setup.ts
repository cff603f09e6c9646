// Runs once before any test: the services the suite needs must be there, or the run stops
// with a message that says what to start. Nothing is ever skipped silently. Then it prepares the
// migrated database every test file starts from (test/helpers/database.ts), once per run.

import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { prepareMigratedDatabases } from './migrated-databases.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './services.js';

export default async function setup(project: TestProject): Promise<void> {
  await checkPostgres();
  await checkRedis();
  const { pgliteDump, postgresTemplate } = await prepareMigratedDatabases();
  project.provide('pgliteDump', pgliteDump);
  project.provide('postgresTemplate', postgresTemplate);
}

async function checkPostgres(): Promise<void> {
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

async function checkRedis(): Promise<void> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 5000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause: Error | null = null;
  client.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    const pong = await client.ping();
    if (pong !== 'PONG') throw new Error(`PING answered ${pong}`);
  } catch (error) {
    throw new Error(
      `Redis is required by the test suite (rate limits) and could not be reached at ${TEST_REDIS_URL} ` +
        `(${(cause ?? (error as Error)).message}). Start it (for example: redis-server --daemonize yes) or set TEST_REDIS_URL.`,
    );
  } finally {
    client.disconnect();
  }
}
