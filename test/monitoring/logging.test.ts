// Keys in URLs are masked in every log line (issue 38, goal 3: "Keys in URLs are masked in every
// log line"): a partner that puts its key in the query string or the path, over real HTTP, with the
// service's own logger (src/monitoring/logging.ts). The human format prints the same masked fields.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { maskSecrets } from '../../src/monitoring/logging.js';
import { createTenant, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

function collector(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
}

describe('logs never carry a key sent in a URL', () => {
  let database: TestDatabase;
  let tenant: Tenant;
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  const json: string[] = [];
  const origins: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    tenant = await createTenant(database.handle.db);
    const app = await buildApp({
      config: loadConfig({ LOG_FORMAT: 'json', LOG_LEVEL: 'debug' }),
      database: database.handle,
      logStream: collector(json),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    apps.push(app);
    origins.push(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database.close();
  });

  it('masks a key in the query string (api_key=, any name like a secret) and in the path, in every line', async () => {
    const key = tenant.key;
    const encoded = encodeURIComponent(key).replaceAll('_', '%5F');
    const paths = [
      `${API_PREFIX}/ping?api_key=${key}`,
      `${API_PREFIX}/customers?per_page=5&access_token=${key.slice(12)}`,
      `${API_PREFIX}/customers/${key}`,
      `${API_PREFIX}/no-such-route/${encoded}?x=1`,
      `/?apiKey=${key}&token=abc123secret`,
    ];
    for (const origin of origins) {
      for (const path of paths)
        await (await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` } })).text();
    }
    const bounded = Date.now() + 10_000;
    while (
      json.filter((line) => line.includes('request completed')).length < paths.length &&
      Date.now() < bounded
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const everything = json.join('\n');
    expect(everything).not.toContain(key.slice(12));
    expect(everything).not.toContain(key.slice(-10));
    expect(everything).not.toContain('abc123secret');
    const urls = json
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.url !== undefined)
      .map((entry) => entry.url);
    expect(urls).toEqual(
      expect.arrayContaining([
        `${API_PREFIX}/ping?api_key=***`,
        `${API_PREFIX}/customers?per_page=5&access_token=***`,
        `${API_PREFIX}/customers/svc_sk_***`,
        `${API_PREFIX}/no-such-route/svc_sk_***?x=1`,
        '/?apiKey=***&token=***',
      ]),
    );
  });

  it('leaves other URLs as they are', () => {
    expect(maskSecrets('/api/v1/partner/invoices?status=issued&page=2')).toBe(
      '/api/v1/partner/invoices?status=issued&page=2',
    );
    expect(maskSecrets('/api/v1/partner/customers/12')).toBe('/api/v1/partner/customers/12');
  });
});
