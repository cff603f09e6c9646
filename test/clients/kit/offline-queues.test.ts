// The offline queues of the Python and PHP clients against the harness (test/helpers/client-harness.ts:
// `bin/invoicing serve` behind a recording proxy), on this project's storage: their own suites
// (clients/python/tests/server/offline_queue_test.py, clients/php/tests/Offline), each with a till
// process killed with SIGKILL at random points at least 20 times; and the samples of the partner
// guide's offline queue pages (docs/site/pt/fila-offline.md, docs/site/en/offline-queue.md), run as
// shown in the three languages. The TypeScript queue's tests are in test/clients/offline (npm test).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerApi } from '../../../clients/typescript/src/index.js';
import { type ClientHarness, childEnv, startClientHarness } from '../../helpers/client-harness.js';
import { runSample } from '../../helpers/sample-runner.js';
import { run } from './run.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGES = { pt: 'docs/site/pt/fila-offline.md', en: 'docs/site/en/offline-queue.md' } as const;
const FENCES = { ts: 'ts', php: 'php', py: 'python' } as const;
const PRINTED = {
  pt: ['fila: 2 enviadas, 0 por enviar, 0 falhadas', 'venda done'],
  en: ['queue: 2 sent, 0 pending, 0 failed', 'sale done'],
};

/** The code block of `fence` in a page (each page has one per language). */
function block(markdown: string, fence: string): string {
  const found = markdown.match(new RegExp(`\n\`\`\`${fence}\n([\\s\\S]*?)\n\`\`\`\n`));
  if (!found?.[1]) throw new Error(`no ${fence} block`);
  return `${found[1]}\n`;
}

const PYTHON_PACKAGE = fileURLToPath(new URL('../../../clients/python/', import.meta.url));
const PHP_PACKAGE = fileURLToPath(new URL('../../../clients/php/', import.meta.url));
const PYTHON = process.env.PYTHON_BIN ?? 'python3';
const PHPUNIT = process.env.PHPUNIT_BIN ?? 'phpunit';

describe('the offline queues of the Python and PHP clients against a real server', () => {
  let harness: ClientHarness;

  beforeAll(async () => {
    harness = await startClientHarness();
  });
  afterAll(() => harness?.close());

  it('Python: order and $local, lost answers, refusals, 24 h look-up, lock and key, 20 SIGKILLs', async () => {
    const result = await run(PYTHON, ['-m', 'unittest', '-v', 'tests.server.offline_queue_test'], {
      cwd: PYTHON_PACKAGE,
      env: childEnv(harness, { PYTHONDONTWRITEBYTECODE: '1' }),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK/m);
    expect(result.output).toMatch(/^Ran 12 tests/m);
    console.info(result.output.match(/^offline queue .*$/m)?.[0]);
  });

  it('PHP: order and $local, lost answers, refusals, 24 h look-up, lock and key, 20 SIGKILLs', async () => {
    const result = await run(PHPUNIT, ['--testsuite', 'offline', '--testdox'], {
      cwd: PHP_PACKAGE,
      env: childEnv(harness),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/^OK \(11 tests/m);
    console.info(result.output.match(/^offline queue .*$/m)?.[0]);
  });

  for (const [lang, page] of Object.entries(PAGES) as [keyof typeof PAGES, string][]) {
    for (const [language, fence] of Object.entries(FENCES) as [keyof typeof FENCES, string][]) {
      it(`the ${lang.toUpperCase()} page's ${fence} sample runs as shown: a customer and a sale, sent once`, async () => {
        const tenant = await control(harness, 'POST', '/tenants', {
          name: `Caixa Exemplo ${lang} ${language}`,
        });
        const api = new PartnerApi({ apiKey: tenant.key, baseUrl: harness.env.PARTNER_API_URL as string });
        const product = await api.products.create({
          name: 'Pão',
          type: 'GOODS',
          inventory: 'NON_INVENTORY',
          price: '150.00',
        });
        const source = block(await readFile(join(ROOT, page), 'utf8'), fence).replace(
          /\b2051\b/g,
          String(product.id),
        );
        const dir = await mkdtemp(join(tmpdir(), `offline-sample-${lang}-${language}-`));
        try {
          const file = join(dir, `sample.${language}`);
          await writeFile(file, source);
          if (language === 'ts') await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
          if (language === 'php') {
            await mkdir(join(dir, 'vendor'));
            await writeFile(
              join(dir, 'vendor/autoload.php'),
              `<?php\nrequire ${JSON.stringify(join(ROOT, 'clients/php/autoload.php'))};\n`,
            );
          }
          const result = await runSample(
            language,
            { dir, file, close: async () => {} },
            {
              PARTNER_API_URL: harness.env.PARTNER_API_URL as string,
              PARTNER_API_KEY: tenant.key,
            },
          );
          expect(result.code, result.stderr).toBe(0);
          expect(result.stdout.trim().split('\n')).toEqual(PRINTED[lang]);
          const [invoice] = (await api.invoices.list({ per_page: 100 })).data.filter(
            (one) => one.reference === 'CAIXA1-000123',
          );
          const customers = (await api.customers.list({ search: 'Ana Macuácua' })).data;
          expect(customers).toHaveLength(1);
          expect(invoice?.customer?.id).toBe(customers[0]!.id);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    }
  }
});

// biome-ignore lint/suspicious/noExplicitAny: the harness answers plain JSON
async function control(harness: ClientHarness, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${harness.env.PARTNER_HARNESS_URL}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`harness ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}
