// Logs are JSON lines carrying the request id and the API key's id, never the key itself.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { api, createTenant, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('request logs', () => {
  let database: TestDatabase;
  let tenant: Tenant;
  const lines: string[] = [];
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    tenant = await createTenant(database.handle.db);
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp({
      config: loadConfig({}),
      database: database.handle,
      logger: { level: 'info', stream, redact: { paths: ['req.headers.authorization'], remove: true } },
    });
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('carry the request id and key id, not the key', async () => {
    const res = await api(app, 'GET', '/ping', { key: tenant.key, idempotencyKey: 'not-logged-123' });
    expect(res.statusCode).toBe(200);
    const entries = lines.map((line) => JSON.parse(line));
    const completed = entries.find((e) => e.msg === 'request completed');
    expect(completed).toMatchObject({ reqId: res.headers['x-request-id'], api_key_id: tenant.apiKey.id });
    expect(lines.join('\n')).not.toContain(tenant.key);
    expect(lines.join('\n')).not.toContain(tenant.key.slice(12));
  });
});
