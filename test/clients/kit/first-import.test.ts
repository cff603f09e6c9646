// The guide's first import (docs/samples/first-import: import.ts, .py, .php), run as a partner
// runs it: with tsx, python3 or php and the official client, three keys of one company from the operator
// (a company per language, the three at once), against
// `bin/invoicing serve` whose write limit is lowered to 5 a minute per key (the others raised),
// so that a small import of 21 records needs two windows: every client paces itself (no record
// lost or created twice, the invalid one reported), and the pace it prints follows from the quotas
// the API announced. The guide shows these very files.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
const LANGUAGES = ['ts', 'py', 'php'] as const;
const sampleFile = (language: string) => join(ROOT, `docs/samples/first-import/import.${language}`);
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
  let env: Record<string, string>;
  const folders: string[] = [];

  /** A company with its partner API on and three live keys, from the operator. */
  async function companyWithKeys(name: string): Promise<string[]> {
    const company = await cliJson<{ id: number }>(['companies', 'create', '--name', name], env);
    await cliJson(['companies', 'enable-api', String(company.id)], env);
    const keys: string[] = [];
    for (let i = 0; i < 3; i++) {
      keys.push(
        (await cliJson<{ key: string }>(['keys', 'create', '--company', String(company.id)], env)).key,
      );
    }
    return keys;
  }

  beforeAll(async () => {
    storage = await createCliStorage();
    env = { ...storage.env, ...LIMITS };
    server = await startServe(env);
  });
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  /** Runs the sample of `language` on a company of its own, and checks what it did. */
  async function importWith(language: (typeof LANGUAGES)[number]): Promise<void> {
    const keys = await companyWithKeys(`Importadora de Tete (${language}), Lda`);
    const folder = await mkdtemp(join(tmpdir(), `sample-first-import-${language}-`));
    folders.push(folder);
    const file = join(folder, `import.${language}`);
    await copyFile(sampleFile(language), file);
    await writeFile(join(folder, 'package.json'), '{"type":"module"}\n');
    // What Composer makes: vendor/autoload.php loading the PHP client.
    await mkdir(join(folder, 'vendor'));
    await writeFile(
      join(folder, 'vendor/autoload.php'),
      `<?php\nrequire ${JSON.stringify(join(ROOT, 'clients/php/autoload.php'))};\n`,
    );
    await writeFile(join(folder, 'import.json'), JSON.stringify(IMPORT, null, 2));
    const run = await runSample(
      language,
      { dir: folder, file, close: async () => {} },
      { PARTNER_API_URL: server.apiBaseUrl, PARTNER_API_KEYS: keys.join(',') },
      240_000,
    );
    expect(run.code, `${language}: ${run.stderr}`).toBe(0);
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
  }

  it('in TypeScript, Python and PHP at once: loads every valid record once within the limits, reports the invalid one, and prints the pace', async () => {
    await Promise.all(LANGUAGES.map(importWith));
  });

  it('is the code the guide shows (PT and EN)', async () => {
    for (const language of LANGUAGES) {
      const sample = (await readFile(sampleFile(language), 'utf8')).trim();
      for (const guide of ['docs/site/pt/guia.md', 'docs/site/en/guide.md']) {
        expect(await readFile(join(ROOT, guide), 'utf8'), `${guide} ${language}`).toContain(sample);
      }
    }
  });
});
