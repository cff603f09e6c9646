// Exactly once under concurrency: many identical requests with one Idempotency-Key, on one
// instance and on two instances sharing the database, create one resource; every answer is the
// original 201, its replay, or 409 in flight.
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { customers } from '../../src/db/schema.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from '../helpers/context.js';

describe('idempotency under concurrency', () => {
  let ctx: TestContext;
  let tenant: Tenant;

  beforeAll(async () => {
    ctx = await startTestApp();
    tenant = await createTenant(ctx.db);
  });
  afterAll(() => ctx.close());

  async function customersNamed(name: string): Promise<number> {
    const [row] = await ctx.db.select({ n: count() }).from(customers).where(eq(customers.name, name));
    return row?.n ?? 0;
  }

  function expectOnceAnswers(responses: Awaited<ReturnType<typeof api>>[]) {
    const created = responses.filter((r) => r.statusCode === 201);
    const inFlight = responses.filter((r) => r.statusCode === 409);
    expect(created.length + inFlight.length).toBe(responses.length);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of inFlight) {
      expect(r.json().error.code).toBe('idempotency_request_in_flight');
      expect(r.headers['retry-after']).toBe('2');
    }
    const originals = created.filter((r) => r.headers['idempotency-replay'] === undefined);
    expect(originals).toHaveLength(1);
    for (const r of created) expect(r.body).toBe(originals[0]?.body);
  }

  it('20 identical requests on one instance create exactly one customer', async () => {
    const body = { name: 'Concorrência Uma Instância' };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api(ctx.app, 'POST', '/customers', {
          key: tenant.key,
          idempotencyKey: 'same-key-one-instance',
          body,
        }),
      ),
    );
    expectOnceAnswers(responses);
    expect(await customersNamed(body.name)).toBe(1);
  });

  it('20 identical requests over two instances sharing the database create exactly one customer', async () => {
    const second = await buildApp({ config: ctx.config, database: ctx.database.handle, logger: false });
    // On PostgreSQL the second instance gets its own connection pool, as a second process would.
    const secondDatabase = ctx.database.url
      ? await (await import('../../src/db/client.js')).openDatabase({
          kind: 'postgres',
          url: ctx.database.url,
        })
      : null;
    const other = secondDatabase
      ? await buildApp({ config: ctx.config, database: secondDatabase, logger: false })
      : second;
    try {
      const body = { name: 'Concorrência Duas Instâncias' };
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api(i % 2 === 0 ? ctx.app : other, 'POST', '/customers', {
            key: tenant.key,
            idempotencyKey: 'same-key-two-instances',
            body,
          }),
        ),
      );
      expectOnceAnswers(responses);
      expect(await customersNamed(body.name)).toBe(1);
    } finally {
      await second.close();
      if (secondDatabase) {
        await other.close();
        await secondDatabase.close();
      }
    }
  });

  it('concurrent creations with one e-mail (any case) leave exactly one customer', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api(ctx.app, 'POST', '/customers', {
          key: tenant.key,
          idempotencyKey: `email-race-${i}-0000`,
          body: { name: `Corrida ${i}`, email: i % 2 ? 'Corrida@Exemplo.co.mz' : 'corrida@exemplo.co.mz' },
        }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(1);
    for (const r of responses.filter((r) => r.statusCode !== 201)) {
      expect(r.statusCode).toBe(422);
      expect(Object.keys(r.json().error.errors)).toEqual(['email']);
    }
    const [row] = await ctx.db
      .select({ n: count() })
      .from(customers)
      .where(sql`lower(${customers.email}) = 'corrida@exemplo.co.mz'`);
    expect(row?.n).toBe(1);
  });
});
