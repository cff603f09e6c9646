// The TypeScript client tells its users when the API says a call uses something deprecated
// (docs/site/en/compatibility.md): once per call site, as a process warning (DeprecationWarning) or
// to `onDeprecation`. Against a real server whose table marks synthetic items deprecated (nothing
// in v1 is), on the current storage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeprecationInfo, PartnerApi } from '../../clients/typescript/src/index.js';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTenant, GENEROUS_LIMITS, TEST_DOCS_URL, type Tenant } from '../helpers/context.js';
import { createTestDatabase, type TestDatabase, testStorage } from '../helpers/database.js';

describe(`TypeScript client: deprecation warnings (${testStorage()})`, () => {
  let database: TestDatabase;
  let app: App;
  let baseUrl: string;
  let tenant: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase();
    const config = loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS });
    app = await buildApp({
      config,
      database: database.handle,
      logger: false,
      deprecations: [
        { route: 'GET /customers', query: 'search', deprecatedAt: '2026-06-01', sunsetAt: '2027-12-31' },
      ],
    });
    baseUrl = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
    tenant = await createTenant(database.handle.db, { name: 'Cliente do Cliente, Lda' });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('calls onDeprecation once per call site, with the dates, the link and where the call was made', async () => {
    const told: DeprecationInfo[] = [];
    const api = new PartnerApi({ apiKey: tenant.key, baseUrl, onDeprecation: (info) => told.push(info) });
    for (let i = 0; i < 3; i++) await api.customers.list({ search: 'x' }); // one call site, three calls
    await api.customers.list({ search: 'y' }); // another call site
    await api.customers.list({ type: 'company' }); // nothing deprecated used
    await api.ping();
    expect(told).toHaveLength(2);
    expect(told[0]).toMatchObject({
      method: 'GET',
      path: '/customers',
      deprecatedAt: new Date('2026-06-01T00:00:00Z'),
      sunsetAt: new Date('2027-12-31T00:00:00Z'),
      link: `${TEST_DOCS_URL}/pt/compatibilidade#cabecalhos-de-descontinuacao`,
    });
    expect(told[0]?.callSite).toMatch(/deprecation\.test\.ts:\d+:\d+$/);
    expect(told[1]?.callSite).not.toBe(told[0]?.callSite);
  });

  it('without onDeprecation: one process warning (DeprecationWarning) per call site', async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => {
      if ((warning as { code?: string }).code === 'PARTNER_API_DEPRECATED') warnings.push(warning);
    };
    process.on('warning', listener);
    try {
      const api = new PartnerApi({ apiKey: tenant.key, baseUrl });
      for (let i = 0; i < 2; i++) await api.customers.list({ search: 'z' });
      await expect.poll(() => warnings.length).toBe(1);
      await api.customers.list({ type: 'individual' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.name).toBe('DeprecationWarning');
      expect(warnings[0]?.message).toContain('GET /customers');
      expect(warnings[0]?.message).toContain('2027-12-31');
      expect(warnings[0]?.message).toMatch(/called at .*deprecation\.test\.ts:\d+:\d+/);
    } finally {
      process.off('warning', listener);
    }
  });
});
