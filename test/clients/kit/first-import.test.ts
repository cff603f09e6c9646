// The guide's first import (docs/samples/first-import/import.ts), run as a partner runs it: with
// tsx and the official TypeScript client, three keys of one company from the operator, against
// `bin/invoicing serve` whose write limit is lowered to 5 a minute per key (the others raised),
// so that a small import of 21 records needs two windows: every client paces itself (no record
// lost or created twice, the invalid one reported), and the pace it prints follows from the quotas
// the API announced. The guide shows this very file.
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  type CliStorage,
  cliJson,
  createCliStorage,
  type ServeProcess,
  startServe,
} from '../../helpers/cli.js';
import { runSample } from '../../helpers/sample-runner.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SAMPLE = join(ROOT, 'docs/samples/first-import/import.ts');
const LIMITS = { RATE_LIMIT_KEY_WRITES_PER_MINUTE: '5', RATE_LIMIT_COMPANY_PER_MINUTE: '1000' };

const IMPORT = {
  customers: [
    ...Array.from({ length: 10 }, (_, i) => ({
      ref: `C-${i + 1}`,
      name: `Cliente Importado ${i + 1}`,
      email: `importado${i + 1}@exemplo.co.mz`,
    })),
    { ref: 'C-11', name: 'Cliente Com E-mail Errado', email: 'sem-arroba' },
  ],
  products: Array.from({ length: 10 }, (_, i) => ({
    ref: `P-${i + 1}`,
    name: `Produto Importado ${i + 1}`,
    type: 'SERVICES',
    inventory: 'NON_INVENTORY',
    price: `${150 + i}.50`,
  })),
};

describe("the guide's first import, with several keys each pacing itself", () => {
  let storage: CliStorage;
  let server: ServeProcess;
  let folder: string;
  let keys: string[];

  beforeAll(async () => {
    storage = await createCliStorage();
    const env = { ...storage.env, ...LIMITS };
    server = await startServe(env);
    const company = await cliJson<{ id: number }>(
      ['companies', 'create', '--name', 'Importadora de Tete, Lda'],
      env,
    );
    await cliJson(['companies', 'enable-api', String(company.id)], env);
    keys = [];
    for (let i = 0; i < 3; i++) {
      const key = await cliJson<{ key: string }>(['keys', 'create', '--company', String(company.id)], env);
      keys.push(key.key);
    }
    folder = await mkdtemp(join(tmpdir(), 'sample-first-import-'));
    await copyFile(SAMPLE, join(folder, 'import.ts'));
    await writeFile(join(folder, 'package.json'), '{"type":"module"}\n');
    await writeFile(join(folder, 'import.json'), JSON.stringify(IMPORT, null, 2));
  });
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('loads every valid record once within the limits, reports the invalid one, and prints the pace', async () => {
    const run = await runSample(
      'ts',
      { dir: folder, file: join(folder, 'import.ts'), close: async () => {} },
      { PARTNER_API_URL: server.apiBaseUrl, PARTNER_API_KEYS: keys.join(',') },
      240_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('imported 20 of 21 (customers 10, products 10), 1 refused, with 3 keys in');
    // 21 writes at 5 a minute per key: each client waited for its window instead of meeting a 429.
    expect(Number(/(\d+) pauses/.exec(run.stdout)?.[1])).toBeGreaterThan(0);
    expect(run.stdout).toContain(
      'pace: 15 writes a minute (3 keys x 5, company 1000): 2000 records take about 134 min',
    );
    expect(run.stdout).toMatch(/refused C-11: \{"email":\[/);

    const total = async (path: string) =>
      (await apiCall(server.apiBaseUrl, keys[0] as string, `${path}&per_page=1`)).body.pagination.total;
    expect(await total('/customers?search=Cliente%20Importado')).toBe(10);
    expect(await total('/products?search=Produto%20Importado')).toBe(10);
  });

  it('is the code the guide shows (PT and EN)', async () => {
    const sample = (await readFile(SAMPLE, 'utf8')).trim();
    for (const guide of ['docs/site/pt/guia.md', 'docs/site/en/guide.md']) {
      expect(await readFile(join(ROOT, guide), 'utf8'), guide).toContain(sample);
    }
  });
});
