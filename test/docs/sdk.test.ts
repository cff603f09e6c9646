// The docs server's /sdk/: the client packages of `npm run clients:pack` (clients/dist by
// default) with their checksums, and nothing outside that folder. The packages themselves are
// built, installed and checked by test/clients/kit/pack.test.ts (npm run test:clients).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocsServer, missingSdkText, SDK_DIST, startDocsServer } from '../../src/docs/server.js';
import { testStorage } from '../helpers/database.js';

describe.runIf(testStorage() === 'pglite')('docs server: /sdk/', () => {
  let dir: string;
  let server: DocsServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docs-sdk-'));
    await mkdir(join(dir, 'site'));
    await mkdir(join(dir, 'sdk'));
    await writeFile(join(dir, 'site/index.html'), '<h1>docs</h1>');
    await writeFile(join(dir, 'sdk/index.html'), '<h1>sdk</h1>');
    await writeFile(join(dir, 'sdk/SHA256SUMS'), 'abc  pkg-1.0.0.tgz\n');
    await writeFile(join(dir, 'sdk/pkg-1.0.0.tgz'), Buffer.from([0x1f, 0x8b, 0, 1]));
    await writeFile(join(dir, 'sdk/pkg-1.0.0-py3-none-any.whl'), 'PK');
    await writeFile(join(dir, 'secret.txt'), 'outside');
    server = await startDocsServer({
      root: join(dir, 'site'),
      sdkRoot: join(dir, 'sdk'),
      host: '127.0.0.1',
      port: 0,
    });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the packages, their index and SHA256SUMS', async () => {
    const index = await fetch(`${server.url}/sdk/`);
    expect([index.status, await index.text()]).toEqual([200, '<h1>sdk</h1>']);
    const sums = await fetch(`${server.url}/sdk/SHA256SUMS`);
    expect(sums.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await sums.text()).toBe('abc  pkg-1.0.0.tgz\n');
    const tarball = await fetch(`${server.url}/sdk/pkg-1.0.0.tgz`);
    expect(tarball.headers.get('content-type')).toBe('application/gzip');
    expect(Buffer.from(await tarball.arrayBuffer())).toEqual(Buffer.from([0x1f, 0x8b, 0, 1]));
    expect((await fetch(`${server.url}/sdk/pkg-1.0.0-py3-none-any.whl`)).headers.get('content-type')).toBe(
      'application/zip',
    );
    const bare = await fetch(`${server.url}/sdk`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/sdk/']);
  });

  it('reaches nothing outside the packages folder, and says how to build a missing one', async () => {
    for (const path of [
      '/sdk/../secret.txt',
      '/sdk/%2e%2e/secret.txt',
      '/sdk/..%2fsecret.txt',
      '/sdk/%2e%2e%2fsecret.txt',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('outside');
    }
    const missing = await fetch(`${server.url}/sdk/nothing-1.0.0.zip`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('/sdk/');
  });

  it('names a command only where it can run: npm run clients:pack in a checkout, none in a runtime tree', () => {
    expect(missingSdkText(true)).toContain('npm run clients:pack');
    expect(missingSdkText(false)).not.toMatch(/npm|deploy|build/);
  });

  it('writes its own address into the install lines of the index', async () => {
    await writeFile(join(dir, 'sdk/index.html'), '<code>npm install __SDK_URL__pkg-1.0.0.tgz</code>');
    const index = await (await fetch(`${server.url}/sdk/`)).text();
    expect(index).toBe(`<code>npm install ${server.url}/sdk/pkg-1.0.0.tgz</code>`);
    const other = await startDocsServer({
      root: join(dir, 'site'),
      sdkRoot: join(dir, 'sdk'),
      host: '127.0.0.1',
      port: 0,
      baseUrl: 'https://docs.example.co.mz/api/',
    });
    try {
      expect(await (await fetch(`${other.url}/sdk/`)).text()).toBe(
        '<code>npm install https://docs.example.co.mz/api/sdk/pkg-1.0.0.tgz</code>',
      );
    } finally {
      await other.close();
    }
    await writeFile(join(dir, 'sdk/index.html'), '<h1>sdk</h1>');
  });

  it('defaults to clients/dist of the checkout', () => {
    expect(SDK_DIST.replaceAll('\\', '/')).toMatch(/\/clients\/dist$/);
  });
});
