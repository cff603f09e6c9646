// The demo company is created once: two `serve --demo` started together on an empty PostgreSQL
// database (the real bin/invoicing, two processes) create one demo company, and the demo
// operation asked to fill an empty database twice at once, on either storage, creates one.
import { count } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { companies } from '../../src/db/schema.js';
import { executeOperation } from '../../src/operations/index.js';
import {
  apiCall,
  type CliStorage,
  cliJson,
  createCliStorage,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { operationSetup } from '../helpers/context.js';
import { createTestDatabase, testStorage } from '../helpers/database.js';

describe.runIf(testStorage() === 'postgres')('serve --demo twice at once on an empty PostgreSQL', () => {
  let storage: CliStorage | undefined;
  const servers: ServeProcess[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await storage?.close();
  });

  it('creates one demo company; the other server starts without one', async () => {
    storage = await createCliStorage({ migrated: false });
    const env = storage.env;
    servers.push(
      ...(await Promise.all([startServe(env, { args: ['--demo'] }), startServe(env, { args: ['--demo'] })])),
    );
    const demos = servers.map((server) => server.ready?.demo).filter((demo) => demo !== null);
    expect(demos).toHaveLength(1);
    const listed = await cliJson<{ companies: unknown[] }>(['companies', 'list'], env);
    expect(listed.companies).toHaveLength(1);
    // Both servers serve it.
    const key = (demos[0] as { live_key: { key: string } }).live_key.key;
    for (const server of servers) {
      const ping = await apiCall(server.apiBaseUrl, key, '/ping');
      expect(ping.status).toBe(200);
    }
  });
});

describe(`the demo into an empty database, asked for twice at once (${testStorage()})`, () => {
  it('creates one demo company', async () => {
    const database = await createTestDatabase();
    try {
      const setup = operationSetup(database.handle);
      const results = await Promise.all([
        executeOperation(setup, 'demo', { if_empty: true }, 'test'),
        executeOperation(setup, 'demo', { if_empty: true }, 'test'),
      ]);
      expect(results.filter((result) => result !== null)).toHaveLength(1);
      const [row] = await database.handle.db.select({ n: count() }).from(companies);
      expect(row?.n).toBe(1);
    } finally {
      await database.close();
    }
  });
});
