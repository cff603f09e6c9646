// A partner's first day with the packages: the runtime tree (deploy/build-runtime.sh, what the
// image and production run) ships every client package, its docs server offers them under /sdk/,
// and the install lines of /sdk/ and of the MCP pages (PT and EN), run as written in a scratch
// folder, install them: npm for the TypeScript client, `npm install -g` for the MCP server (whose
// tarball installs alone, the TypeScript client bundled), pip in a fresh venv for Python, curl +
// `composer init` + `composer require` for PHP. The installed MCP server is then started and
// listed through the official MCP SDK client against a real API. Needs python3 with venv, php,
// composer and curl (scripts/ensure-php.sh, scripts/ensure-python.sh) and the npm registry (the
// MCP server's own dependencies come from it).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientVersions } from '../../../src/docs/sdk-files.js';
import { type ListeningApp, startListeningApp } from '../../helpers/client-server.js';
import { createTenant } from '../../helpers/context.js';
import { freePort } from '../../helpers/server-process.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PYTHON = process.env.PYTHON_BIN ?? 'python3';

function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The install blocks of the /sdk/ index, by package, for one language's section. */
function sdkBlocks(html: string, lang: 'pt' | 'en'): Record<string, string> {
  const section = html.slice(html.indexOf(`<section lang="${lang}"`));
  const end = section.indexOf('</section>');
  const blocks: Record<string, string> = {};
  for (const match of section
    .slice(0, end)
    .matchAll(/<code class="language-sh" data-install="([a-z]+)">([\s\S]*?)<\/code>/g))
    blocks[match[1] as string] = unescapeHtml(match[2] as string);
  return blocks;
}

/** The shell blocks of a docs page that contain `needle`. */
function shellBlocks(html: string, needle: string): string[] {
  return [...html.matchAll(/<code class="language-sh">([\s\S]*?)<\/code>/g)]
    .map((match) => unescapeHtml(match[1] as string).trim())
    .filter((block) => block.includes(needle));
}

/** Runs the lines as written, one shell, stopping at the first failure. */
async function follow(lines: string, cwd: string, env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await exec('sh', ['-e', '-c', lines], {
      cwd,
      env: { ...process.env, npm_config_loglevel: 'error', ...env },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 240_000,
    });
    return stdout;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${lines}\nfailed: ${failure.message}\n${failure.stdout ?? ''}\n${failure.stderr ?? ''}`);
  }
}

describe('the packages where the docs say: runtime tree, /sdk/, and the pages install lines as written', () => {
  let work: string;
  let tree: string;
  let docs: string;
  let serve: ChildProcess | null = null;
  let api: ListeningApp;
  let sdkHtml: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'partner-first-day-'));
    tree = join(work, 'app');
    await exec(join(ROOT, 'deploy/build-runtime.sh'), [tree], { maxBuffer: 16 * 1024 * 1024 });
    // The tree's own server, started from elsewhere with a bare environment.
    const [docsPort, opsPort] = [await freePort(), await freePort()];
    await mkdir(join(work, 'elsewhere'));
    const child = spawn(process.execPath, [join(tree, 'bin/invoicing'), 'serve', '--json'], {
      cwd: join(work, 'elsewhere'),
      env: {
        PATH: '/usr/bin:/bin',
        HOME: work,
        DATA_DIR: join(work, 'data'),
        PORT: '0',
        DOCS_PORT: String(docsPort),
        OPS_PORT: String(opsPort),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    serve = child;
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const deadline = Date.now() + 120_000;
    while (!stdout.includes('\n')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    docs = `http://127.0.0.1:${docsPort}`;
    api = await startListeningApp();
  }, 600_000);
  afterAll(async () => {
    serve?.kill('SIGKILL');
    await api?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('the runtime tree ships every package, its version in its name, served under /sdk/ with SHA256SUMS', async () => {
    const v = await clientVersions();
    const expected = [
      `invoicing-partner-api-${v.typescript}.tgz`,
      `invoicing-partner-api-${v.php}.zip`,
      `invoicing-partner-mcp-${v.mcp}.tgz`,
      `invoicing_partner_api-${v.python}-py3-none-any.whl`,
      `invoicing_partner_api-${v.python}.tar.gz`,
    ];
    const shipped = (await readdir(join(tree, 'clients/dist'))).filter((name) =>
      /\.(tgz|zip|whl|gz)$/.test(name),
    );
    expect(shipped.sort()).toEqual([...expected].sort());
    const sums = await (await fetch(`${docs}/sdk/SHA256SUMS`)).text();
    expect(
      sums
        .trim()
        .split('\n')
        .map((line) => line.split('  ')[1]),
    ).toEqual([...expected].sort());
    for (const line of sums.trim().split('\n')) {
      const [hash, name] = line.split('  ');
      const file = await fetch(`${docs}/sdk/${name}`);
      expect(file.status, name).toBe(200);
      expect(
        createHash('sha256')
          .update(Buffer.from(await file.arrayBuffer()))
          .digest('hex'),
        name,
      ).toBe(hash);
    }
    const response = await fetch(`${docs}/sdk/`);
    expect(response.status).toBe(200);
    sdkHtml = await response.text();
    // The same lines in both languages, naming this server, no placeholder left.
    expect(sdkBlocks(sdkHtml, 'pt')).toEqual(sdkBlocks(sdkHtml, 'en'));
    expect(Object.keys(sdkBlocks(sdkHtml, 'pt')).sort()).toEqual(['mcp', 'php', 'python', 'typescript']);
    expect(sdkHtml).not.toContain('__SDK_URL__');
    expect(sdkHtml).toContain(`${docs}/sdk/invoicing-partner-mcp-${v.mcp}.tgz`);
    // A name that is not there: the hint names no command (the tree cannot run one).
    const missing = await fetch(`${docs}/sdk/nothing-9.9.9.tgz`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain('npm run');
  });

  it('TypeScript: the /sdk/ line, run as written in an empty folder, installs the client', async () => {
    const folder = join(work, 'ts');
    await mkdir(folder);
    await follow(sdkBlocks(sdkHtml, 'pt').typescript as string, folder);
    const { stdout } = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@invoicing/partner-api'); console.log(typeof m.PartnerApi, m.isValidNuit('400339910'))",
      ],
      { cwd: folder },
    );
    expect(stdout.trim()).toBe('function true');
  });

  it('MCP: the MCP pages (PT, EN) and /sdk/ give the same lines; run as written, the server installs alone, starts and lists its tools through the MCP SDK client', async () => {
    const pages = await Promise.all(
      ['/pt/mcp', '/en/mcp'].map(async (path) => (await fetch(`${docs}${path}`)).text()),
    );
    const [pt, en] = pages.map((html) => shellBlocks(html, 'npm install -g'));
    expect(pt).toHaveLength(1);
    expect(en).toEqual(pt);
    expect(pt?.[0]).toBe((sdkBlocks(sdkHtml, 'pt').mcp as string).trim());
    for (const html of pages) expect(html).not.toMatch(/npx -y|\{\{/);

    // `npm install -g` into a prefix of this test (the machine's global folder stays untouched).
    const folder = join(work, 'mcp');
    const prefix = join(work, 'npm-global');
    await mkdir(folder);
    const env = { npm_config_prefix: prefix, PATH: `${join(prefix, 'bin')}:${process.env.PATH}` };
    const help = await follow(pt?.[0] as string, folder, env);
    expect(help).toContain('Usage: partner-mcp');
    const command = join(prefix, 'bin/partner-mcp');
    expect(existsSync(command)).toBe(true);

    const tenant = await createTenant(api.db, { name: 'Primeiro Dia, Lda' });
    const client = new Client({ name: 'first-day', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command,
      args: ['--allow-writes'],
      cwd: folder,
      env: { PATH: env.PATH, PARTNER_API_URL: api.baseUrl, PARTNER_API_KEY: tenant.key },
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['who_am_i', 'find_customers', 'create_draft_invoice']),
      );
      const who = await client.callTool({ name: 'who_am_i', arguments: {} });
      expect(who.isError).toBeFalsy();
      expect(JSON.stringify(who.structuredContent)).toContain('Primeiro Dia, Lda');
    } finally {
      await client.close();
    }
  });

  it('Python: the /sdk/ line, run as written in a fresh venv, installs the client', async () => {
    const folder = join(work, 'python');
    await mkdir(folder);
    await exec(PYTHON, ['-m', 'venv', join(folder, 'venv')]);
    const env = {
      PATH: `${join(folder, 'venv/bin')}:${process.env.PATH}`,
      PIP_DISABLE_PIP_VERSION_CHECK: '1',
    };
    await follow(sdkBlocks(sdkHtml, 'pt').python as string, folder, env);
    const { stdout } = await exec(
      join(folder, 'venv/bin/python'),
      ['-c', 'import invoicing_partner_api as p; print(p.__version__, p.is_valid_nuit("400339910"))'],
      { cwd: folder },
    );
    expect(stdout.trim()).toBe(`${(await clientVersions()).python} True`);
  });

  it('PHP: the /sdk/ lines (curl, composer init, composer require), run as written, install the client', async () => {
    const folder = join(work, 'php');
    await mkdir(folder);
    const lines = sdkBlocks(sdkHtml, 'pt').php as string;
    expect(lines).toContain('composer init');
    await follow(lines, folder, {
      COMPOSER_HOME: join(work, 'composer-home'),
      COMPOSER_ALLOW_SUPERUSER: '1',
    });
    const { stdout } = await exec(
      process.env.PHP_BIN ?? 'php',
      [
        '-r',
        'require "vendor/autoload.php"; echo Invoicing\\PartnerApi\\PartnerApi::VERSION, " ", var_export(Invoicing\\PartnerApi\\Nuit::isValid("400339910"), true);',
      ],
      { cwd: folder },
    );
    expect(stdout).toBe(`${(await clientVersions()).php} true`);
  });
});
