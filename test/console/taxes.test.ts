// decisions.md, Products: "the documented sources of a company's tax ids are the operator's `taxes
// list` and the partner's view of the support console"; Support console: `partner` reads its
// company's taxes. The company's page lists the taxes it may use (its own and the global ones, with
// id, name and rate), to a partner account and to the staff, over real HTTP on PGlite and
// PostgreSQL; another company's tax is never on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeOperation } from '../../src/operations/index.js';
import { signedInPerson, startTestConsole, type TestConsole, type TestPerson } from '../helpers/console.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** The rows of the page's taxes table: tax_id, name, rate, whose. */
function taxRows(html: string): string[][] {
  const table = /<th scope="col">tax_id<\/th>[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] as string).matchAll(/<td>([\s\S]*?)<\/td>/g)].map((cell) => cell[1] as string),
  );
}

describe("the company's taxes in the support console", () => {
  let database: TestDatabase;
  let consoleServer: TestConsole;
  let mine: number;
  let empty: number;
  let partner: TestPerson;
  let viewer: TestPerson;
  const ids = { own: 0, global: 0, other: 0 };

  beforeAll(async () => {
    database = await createTestDatabase();
    consoleServer = await startTestConsole(database.handle);
    const setup = consoleServer.setup;
    const create = (args: Record<string, unknown>) => executeOperation(setup, 'taxes.create', args, 'test');
    mine = (await executeOperation(setup, 'companies.create', { name: 'Loja da Baixa, Lda' }, 'test')).id;
    const other = (await executeOperation(setup, 'companies.create', { name: 'Outra, Lda' }, 'test')).id;
    ids.own = (await create({ company: mine, name: 'IVA 16% <b>loja</b>', rate: '16' })).id;
    ids.global = (await create({ global: true, name: 'Isento', rate: '0' })).id;
    ids.other = (await create({ company: other, name: 'IVA reduzido da outra', rate: '5.5' })).id;
    partner = await signedInPerson(consoleServer, 'partner', mine);
    viewer = await signedInPerson(consoleServer, 'viewer');
    empty = other;
  });
  afterAll(async () => {
    await consoleServer?.close();
    await database?.close();
  });

  it("decisions.md: 'the partner's view of the support console' is where a partner finds its company's tax ids: its own and the global ones, never another company's", async () => {
    const page = await partner.client.get(`/companies/${mine}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2>Impostos</h2>');
    expect(taxRows(page.text)).toEqual([
      // Partner data is shown as text, never as markup.
      [String(ids.own), 'IVA 16% &lt;b&gt;loja&lt;/b&gt;', '16%', 'desta empresa'],
      [String(ids.global), 'Isento', '0%', 'global'],
    ]);
    expect(page.text).not.toContain('IVA reduzido da outra');
    // The other company's page (and so its taxes) answers a partner as a missing one.
    expect((await partner.client.get(`/companies/${empty}`)).status).toBe(404);
  });

  it("the staff see each company's own taxes with the global ones, in English one switch away", async () => {
    const other = await viewer.client.get(`/companies/${empty}?lang=en`);
    expect(other.status).toBe(200);
    expect(other.text).toContain('<h2>Taxes</h2>');
    expect(taxRows(other.text)).toEqual([
      [String(ids.global), 'Isento', '0%', 'global'],
      [String(ids.other), 'IVA reduzido da outra', '5.5%', 'this company&#39;s'],
    ]);
  });
});
