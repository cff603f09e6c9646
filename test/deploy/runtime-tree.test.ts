// deploy/build-runtime.sh assembles what the image ships (deploy/Dockerfile runs it). Here it
// builds a tree in a temporary directory, and the server runs from that tree alone: started outside
// the checkout with a bare environment, no development dependency installed, it creates no demo
// company, answers the API with a key the operator created with the tree's own command line, serves
// the prebuilt docs, and every doc_url opens its entry.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_NODE_OPTIONS } from '../../scripts/lib/node-options.js';
import { freePort } from '../helpers/server-process.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../deploy/build-runtime.sh', import.meta.url));

describe('the runtime tree (deploy/build-runtime.sh)', () => {
  let work: string;
  let stop: (() => void) | null = null;

  afterAll(async () => {
    stop?.();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('runs the server with nothing else: API with a key, prebuilt docs, doc_url, build info', async () => {
    work = await mkdtemp(join(tmpdir(), 'invoicing-runtime-'));
    const tree = join(work, 'app');
    await run(SCRIPT, [tree], {
      env: { ...process.env, BUILD_COMMIT: 'c0ffee' },
      maxBuffer: 16 * 1024 * 1024,
    });

    // What ships: code, migrations, built docs, runtime dependencies only.
    for (const path of [
      'dist/cli/main.js',
      'bin/invoicing',
      'drizzle',
      'docs/dist/errors.html',
      'node_modules/fastify',
    ])
      expect(existsSync(join(tree, path)), path).toBe(true);
    for (const path of [
      'src',
      'docs/site',
      'node_modules/typescript',
      'node_modules/tsx',
      'node_modules/@redocly',
      'node_modules/marked',
      'node_modules/vitest',
    ])
      expect(existsSync(join(tree, path)), path).toBe(false);
    expect(JSON.parse(readFileSync(join(tree, 'build-info.json'), 'utf8'))).toMatchObject({
      commit: 'c0ffee',
    });
    // The image is this tree (no container engine here to build it).
    const dockerfile = readFileSync(
      fileURLToPath(new URL('../../deploy/Dockerfile', import.meta.url)),
      'utf8',
    );
    expect(dockerfile).toMatch(/^RUN .*sh deploy\/build-runtime\.sh \/runtime$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/runtime \.\/$/m);
    // Production's heap limit, the same in the image, the systemd unit and the bench's and
    // rehearsal's servers (one value: scripts/lib/node-options.ts); the tree runs with it.
    expect(dockerfile).toContain(`ENV NODE_OPTIONS=${SERVER_NODE_OPTIONS}\n`);
    expect(
      readFileSync(fileURLToPath(new URL('../../deploy/invoicing.service', import.meta.url)), 'utf8'),
    ).toContain(`Environment=NODE_OPTIONS=${SERVER_NODE_OPTIONS}\n`);

    // Started from elsewhere, with a bare environment: nothing of the checkout can be reached.
    const cwd = join(work, 'elsewhere');
    await mkdir(cwd);
    const [docsPort, opsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [join(tree, 'bin/invoicing'), 'serve', '--json'], {
      cwd,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: work,
        DATA_DIR: join(cwd, 'data'),
        PORT: '0',
        DOCS_PORT: String(docsPort),
        OPS_PORT: String(opsPort),
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: SERVER_NODE_OPTIONS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stop = () => child.kill('SIGKILL');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 120_000;
    while (!stdout.includes('\n')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ready = JSON.parse(stdout.slice(0, stdout.indexOf('\n')));
    expect(ready.docs_url).toBe(`http://127.0.0.1:${docsPort}/`);

    // decisions.md, "Demo data": never by the runtime tree; the operator creates a company and a
    // key with the tree's own command line (through the running server's admin socket).
    expect(ready.demo).toBeNull();
    expect(stderr).not.toContain('svc_sk_');
    const cli = async (...args: string[]) => {
      const { stdout: out } = await run(process.execPath, [join(tree, 'bin/invoicing'), ...args, '--json'], {
        cwd,
        env: { PATH: '/usr/bin:/bin', HOME: work, DATA_DIR: join(cwd, 'data') },
      });
      return JSON.parse(out);
    };
    const company = await cli('companies', 'create', '--name', 'Primeira Loja, Lda');
    await cli('companies', 'enable-api', String(company.id));
    const key = await cli('keys', 'create', '--company', String(company.id));
    const ping = await fetch(`${ready.api_base_url}/ping`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(ping.status).toBe(200);
    const refused = await fetch(`${ready.api_base_url}/customers`);
    expect(refused.status).toBe(401);
    const docUrl = (await refused.json()).error.doc_url as string;
    expect(docUrl).toBe(`http://127.0.0.1:${docsPort}/errors#invalid_api_key`);
    const entry = await fetch(docUrl);
    expect(entry.status).toBe(200);
    expect(await entry.text()).toContain('<section class="error" id="invalid_api_key">');
    for (const page of ['/pt/', '/en/', '/reference', '/openapi.json'])
      expect((await fetch(`http://127.0.0.1:${docsPort}${page}`)).status, page).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /^invoicing_build_info\{version="[^"]+",commit="c0ffee",node_version="v[\d.]+"\} 1$/m,
    );

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    stop = null;
  }, 300_000);
});
