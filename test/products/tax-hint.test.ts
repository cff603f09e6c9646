// decisions.md, "Products": a tax_id (of a product or a line) that is unknown or another company's
// gives the same 422, whose hint lists the company's usable taxes (id, name, rate: the company's
// own and the global ones). Through real HTTP: POST and PUT /products, POST /invoices, with a body
// that passes its schema (the service refuses it) and one that does not (src/http/input-checks.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTax } from '../../src/operations/taxes.js';
import {
  createTenant,
  newIdempotencyKey,
  startTestApp,
  type Tenant,
  type TestContext,
} from '../helpers/context.js';
import { testStorage } from '../helpers/database.js';
import { baseBody, postProduct } from '../helpers/products.js';

const RULE =
  "decisions.md Products: 'A tax_id that is unknown or another company's gives the same 422, whose hint lists the company's usable taxes'";

describe(`a refused tax_id lists the usable taxes (${testStorage()})`, () => {
  let ctx: TestContext;
  let base: string;
  let tenant: Tenant;
  let other: Tenant;
  let ownTax: number;
  let globalTax: number;
  let foreignTax: number;
  let productId: number;

  beforeAll(async () => {
    ctx = await startTestApp();
    base = `${await ctx.app.listen({ port: 0, host: '127.0.0.1' })}/api/v1/partner`;
    tenant = await createTenant(ctx.db, { name: 'Loja do Imposto' });
    other = await createTenant(ctx.db, { name: 'Empresa Alheia' });
    ownTax = (await createTax(ctx.db, { companyId: tenant.companyId, name: 'IVA', rate: '16' })).id;
    globalTax = (await createTax(ctx.db, { companyId: null, name: 'IVA reduzido', rate: '5.5' })).id;
    foreignTax = (await createTax(ctx.db, { companyId: other.companyId, name: 'Taxa Secreta', rate: '17' }))
      .id;
    productId = (await postProduct(ctx.app, tenant, baseBody({ name: 'Arroz' }))).id;
  });
  afterAll(() => ctx?.close());

  async function send(method: string, path: string, body: unknown) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tenant.key}`,
        'content-type': 'application/json',
        'idempotency-key': newIdempotencyKey('tax-hint'),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, error: JSON.parse(text).error };
  }

  /** The answer to a body naming `taxId`, with its request id taken out (the only difference allowed). */
  async function refused(method: string, path: string, body: (taxId: number) => unknown, taxId: number) {
    const answer = await send(method, path, body(taxId));
    expect(answer.status, answer.text).toBe(422);
    expect(answer.error.code).toBe('validation_failed');
    return answer.text.replace(answer.error.request_id, '<request id>');
  }

  const cases: [string, string, () => string, (taxId: number) => unknown][] = [
    ['POST /products', 'POST', () => '/products', (tax_id) => baseBody({ tax_id })],
    ['PUT /products/{id}', 'PUT', () => `/products/${productId}`, (tax_id) => baseBody({ tax_id })],
    [
      'POST /products whose schema also fails',
      'POST',
      () => '/products',
      (tax_id) => baseBody({ tax_id, stock: 3 }),
    ],
    [
      'POST /invoices (a line)',
      'POST',
      () => '/invoices',
      (tax_id) => ({
        customer_id: 1,
        items: [
          { product_id: productId, quantity: 1, price: 10 },
          { product_id: productId, quantity: 1, price: 10, tax_id },
        ],
      }),
    ],
  ];

  for (const [name, method, path, body] of cases) {
    it(`${RULE}: ${name}`, async () => {
      const unknown = await refused(method, path(), body, 999_999);
      const foreign = await refused(method, path(), body, foreignTax);
      // Byte for byte the same answer: nothing tells a foreign id from a missing one.
      expect(foreign).toBe(unknown);
      const hint = JSON.parse(unknown).error.hint as string;
      expect(hint).toContain(`id ${ownTax} (IVA, 16%)`);
      expect(hint).toContain(`id ${globalTax} (IVA reduzido, 5.5%)`);
      expect(hint).toContain('Sem tax_id, um produto não tem imposto.');
      expect(hint).not.toContain('Taxa Secreta');
      expect(hint).not.toContain(`id ${foreignTax} `);
      expect(hint).not.toContain('17%');
    });
  }

  it(`${RULE}: the other company sees its own tax and the global one, never this company's`, async () => {
    const res = await fetch(`${base}/products`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${other.key}`,
        'content-type': 'application/json',
        'idempotency-key': newIdempotencyKey('tax-hint'),
      },
      body: JSON.stringify(baseBody({ tax_id: ownTax })),
    });
    expect(res.status).toBe(422);
    const { hint } = (await res.json()).error;
    expect(hint).toContain(`id ${foreignTax} (Taxa Secreta, 17%)`);
    expect(hint).toContain(`id ${globalTax} (IVA reduzido, 5.5%)`);
    expect(hint).not.toContain('(IVA, 16%)');
  });

  it('a refused tax_id ("tax_id": 0 on POST /products) answers the usable taxes in the hint and creates nothing', async () => {
    const answer = await send('POST', '/products', baseBody({ name: 'Sonda', tax_id: 0 }));
    expect(answer.status).toBe(422);
    expect(answer.error.hint).toContain(`id ${ownTax} (IVA, 16%)`);
    const listed = await fetch(`${base}/products?search=Sonda`, {
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect((await listed.json()).data).toEqual([]);
  });

  it('a body refused for another reason keeps the usual hint', async () => {
    const answer = await send('POST', '/products', baseBody({ price: 1.234 }));
    expect(answer.status).toBe(422);
    expect(answer.error.hint).not.toContain('Impostos');
  });
});
