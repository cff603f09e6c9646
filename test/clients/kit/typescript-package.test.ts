// The package as partners get it: `npm run build -w @invoicing/partner-api` (into a directory of
// this test, so parallel runs never share output), installed as node_modules/@invoicing/partner-api
// with its own package.json; the README's example compiles against it and runs against a real
// server.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningApp, startListeningApp } from '../../helpers/client-server.js';
import { createTenant } from '../../helpers/context.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE_DIR = path.join(ROOT, 'clients/typescript');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** The first ```ts block of the package README. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(path.join(PACKAGE_DIR, 'README.md'), 'utf8');
  const match = /```ts\n([\s\S]*?)```/.exec(readme);
  if (!match?.[1]) throw new Error('the package README has no ```ts example');
  return match[1];
}

describe('TypeScript client: the built package', () => {
  let work: string;
  let installed: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'partner-api-client-'));
    installed = path.join(work, 'node_modules/@invoicing/partner-api');
    await mkdir(installed, { recursive: true });
    await run(
      'npm',
      ['run', 'build', '-w', '@invoicing/partner-api', '--', '--outDir', path.join(installed, 'dist')],
      {
        cwd: ROOT,
      },
    );
    await copyFile(path.join(PACKAGE_DIR, 'package.json'), path.join(installed, 'package.json'));
  }, 180_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('builds ESM with type declarations, no runtime dependency', async () => {
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@invoicing/partner-api');
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies ?? {}).toEqual({});
    const files = await readdir(path.join(installed, 'dist'));
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'client.js', 'transport.js']));
    const api = await import(path.join(installed, 'dist/index.js'));
    expect(Object.keys(api).sort()).toEqual(
      [
        'Customers',
        'ERROR_CODES',
        'Invoices',
        'OfflineQueue',
        'PartnerApi',
        'PartnerApiError',
        'PartnerApiNetworkError',
        'Payments',
        'Products',
        'RefConflictError',
        'StoreKeyMismatchError',
        'StoreLockedError',
        'VERSION',
        'WebhookVerificationError',
        'compactNuit',
        'deprecationOf',
        'formatNuit',
        'isValidNuit',
        'nuitCheckDigit',
        'responseOf',
        'verifyWebhook',
      ].sort(),
    );
    // The built code imports nothing but its own files.
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      const text = await readFile(path.join(installed, 'dist', file), 'utf8');
      for (const [, specifier] of text.matchAll(/from '([^']+)'/g)) expect(specifier, file).toMatch(/^\.\//);
    }
  });

  describe('the README example', () => {
    let server: ListeningApp;

    beforeAll(async () => {
      server = await startListeningApp();
    });
    afterAll(() => server?.close());

    it('compiles against the built package and runs against a real server', async () => {
      const tenant = await createTenant(server.db, { name: 'Exemplo do README, Lda' });
      await writeFile(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      await writeFile(path.join(work, 'example.ts'), await readmeExample());
      await writeFile(
        path.join(work, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            noUncheckedIndexedAccess: true,
            typeRoots: [path.join(ROOT, 'node_modules/@types')],
            types: ['node'],
            outDir: 'out',
          },
          files: ['example.ts'],
        }),
      );
      const compiled = await run(process.execPath, [TSC, '-p', work], { cwd: work }).catch(
        (error: { stdout?: string; message: string }) => {
          throw new Error(`the README example does not compile: ${error.stdout ?? ''}${error.message}`);
        },
      );
      expect(compiled.stderr).toBe('');

      const { stdout } = await run(process.execPath, [path.join(work, 'out/example.js')], {
        cwd: work,
        env: { ...process.env, PARTNER_API_KEY: tenant.key, PARTNER_API_URL: server.baseUrl },
      });
      const lines = stdout.trim().split('\n');
      expect(lines[0]).toBe('empresa / company: Exemplo do README, Lda (live)');
      expect(lines[1]).toMatch(/^DRAFT-\S{8} draft total 2501\.00 MZN$/);
      expect(lines[2]).toBe('clientes / customers: 1');
      expect(lines[3]).toMatch(/^não encontrada \/ not found \(pedido \/ request req_[0-9a-f]+\)$/);
      expect(lines[4]).toMatch(/^pedidos restantes \/ requests left: \d+$/);
    });
  });
});
