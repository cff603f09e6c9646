// `npm run clients:pack` as partners get its output: every package with its SHA-256 in SHA256SUMS,
// rebuilt byte for byte the same, served by the docs server under /sdk/, and each one installed
// the way its README says, without a network: the wheel and the sdist with `pip --no-index` into a
// fresh venv, the npm tarball with `npm install --offline`, the Composer zip through an artifact
// repository (Packagist off). Needs python3 with venv, and Debian's php and composer
// (scripts/ensure-php.sh).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedFile, packClients } from '../../../scripts/pack-clients.js';
import { type DocsServer, startDocsServer } from '../../../src/docs/server.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PYTHON = process.env.PYTHON_BIN ?? 'python3';
const PHP = process.env.PHP_BIN ?? 'php';
const COMPOSER = process.env.COMPOSER_BIN ?? 'composer';

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

describe('client packages (npm run clients:pack)', () => {
  let work: string;
  let out: string;
  let files: PackedFile[];
  const file = (pattern: RegExp): PackedFile => {
    const found = files.find((one) => pattern.test(one.name));
    if (!found) throw new Error(`no package matches ${pattern}: ${files.map((f) => f.name).join(', ')}`);
    return found;
  };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'partner-api-pack-'));
    out = join(work, 'sdk');
    files = await packClients(out);
  }, 300_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('packs every client, each with its checksum, the same bytes on every build', async () => {
    const npmPackages = [];
    for (const entry of await readdir(join(ROOT, 'clients'), { withFileTypes: true })) {
      const manifest = await readFile(join(ROOT, 'clients', entry.name, 'package.json'), 'utf8').catch(
        () => null,
      );
      if (entry.isDirectory() && manifest)
        npmPackages.push(JSON.parse(manifest) as { name: string; version: string });
    }
    expect(npmPackages.map((p) => p.name)).toContain('@invoicing/partner-api');
    for (const manifest of npmPackages) {
      const name = `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
      expect(files.map((f) => f.name)).toContain(name);
    }
    file(/^invoicing_partner_api-1\.0\.0-py3-none-any\.whl$/);
    file(/^invoicing_partner_api-1\.0\.0\.tar\.gz$/);
    file(/^invoicing-partner-api-1\.0\.0\.zip$/);
    expect(files).toHaveLength(npmPackages.length + 3);

    const sums = await readFile(join(out, 'SHA256SUMS'), 'utf8');
    expect(sums).toBe(files.map((f) => `${f.sha256}  ${f.name}\n`).join(''));
    for (const one of files) expect(sha256(await readFile(join(out, one.name))), one.name).toBe(one.sha256);
    const checked = await exec('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out });
    expect(checked.stdout.trim().split('\n')).toHaveLength(files.length);

    const again = await packClients(join(work, 'again'));
    expect(again.map((f) => [f.name, f.sha256])).toEqual(files.map((f) => [f.name, f.sha256]));
  });

  describe('served by the docs server under /sdk/', () => {
    let docs: DocsServer;
    beforeAll(async () => {
      docs = await startDocsServer({ root: join(work, 'again'), sdkRoot: out, host: '127.0.0.1', port: 0 });
    });
    afterAll(() => docs?.close());

    it('every package with the checksum SHA256SUMS gives, and an index page', async () => {
      const sums = await (await fetch(`${docs.url}/sdk/SHA256SUMS`)).text();
      for (const line of sums.trim().split('\n')) {
        const [hash, name] = line.split('  ');
        const response = await fetch(`${docs.url}/sdk/${name}`);
        expect(response.status, name).toBe(200);
        expect(sha256(Buffer.from(await response.arrayBuffer())), name).toBe(hash);
      }
      const index = await (await fetch(`${docs.url}/sdk/`)).text();
      for (const one of files) expect(index).toContain(one.sha256);
    });
  });

  it('Python: the wheel and the sdist install with pip --no-index into a fresh venv and import', async () => {
    const venv = join(work, 'venv');
    await exec(PYTHON, ['-m', 'venv', venv]);
    for (const [label, artifact] of [
      ['wheel', file(/\.whl$/)],
      ['sdist', file(/^invoicing_partner_api-.*\.tar\.gz$/)],
    ] as const) {
      // The sdist builds with the package's own backend: no setuptools, no network.
      await exec(
        join(venv, 'bin/python'),
        ['-m', 'pip', 'install', '--quiet', '--no-index', '--force-reinstall', join(out, artifact.name)],
        { cwd: work, env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' } },
      );
      const { stdout } = await exec(
        join(venv, 'bin/python'),
        [
          '-c',
          'import invoicing_partner_api as p, sys; print(p.__version__, p.__file__.startswith(sys.prefix), p.is_valid_nuit("400339910"), p.PartnerApi("svc_sk_test_x", "http://127.0.0.1:1").customers.__class__.__name__)',
        ],
        { cwd: work },
      );
      expect(stdout.trim(), label).toBe('1.0.0 True True Customers');
    }
  });

  it('TypeScript: the tarball installs offline (no dependency) and imports', async () => {
    const project = join(work, 'npm-project');
    await exec('mkdir', ['-p', project]);
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'partner', private: true, type: 'module' }),
    );
    await exec(
      'npm',
      [
        'install',
        '--offline',
        '--no-audit',
        '--no-fund',
        join(out, file(/^invoicing-partner-api-.*\.tgz$/).name),
      ],
      {
        cwd: project,
      },
    );
    const { stdout } = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@invoicing/partner-api'); console.log(m.VERSION, typeof m.PartnerApi, typeof m.verifyWebhook, m.isValidNuit('400 339 910'))",
      ],
      { cwd: project },
    );
    expect(stdout.trim()).toBe('1.0.0 function function true');
    const installed = await readdir(join(project, 'node_modules/@invoicing/partner-api'));
    expect(installed.sort()).toEqual(['README.md', 'dist', 'package.json']);
  });

  it('PHP: the zip is a Composer package that installs from an artifact repository, tests left out', async () => {
    const project = join(work, 'composer-project');
    await exec('mkdir', ['-p', project]);
    await writeFile(
      join(project, 'composer.json'),
      JSON.stringify({
        repositories: [{ type: 'artifact', url: out }, { 'packagist.org': false }],
        require: { 'invoicing/partner-api': '^1.0' },
      }),
    );
    await exec(COMPOSER, ['install', '--no-interaction', '--no-progress', '--quiet'], {
      cwd: project,
      env: { ...process.env, COMPOSER_HOME: join(work, 'composer-home'), COMPOSER_ALLOW_SUPERUSER: '1' },
    });
    const installed = join(project, 'vendor/invoicing/partner-api');
    expect((await readdir(installed)).sort()).toEqual(['README.md', 'autoload.php', 'composer.json', 'src']);
    const { stdout } = await exec(
      PHP,
      [
        '-r',
        'require "vendor/autoload.php"; echo Invoicing\\PartnerApi\\PartnerApi::VERSION, " ", var_export(Invoicing\\PartnerApi\\Nuit::isValid("400339910"), true), " ", get_class((new Invoicing\\PartnerApi\\PartnerApi(apiKey: "svc_sk_test_x", baseUrl: "http://127.0.0.1:1"))->customers);',
      ],
      { cwd: project },
    );
    expect(stdout).toBe('1.0.0 true Invoicing\\PartnerApi\\Customers');
  });
});
