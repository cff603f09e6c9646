// The docs server over HTTP, on a small site of its own: paths are normalized before a redirect
// is made (never `Location: //other.host/...`), every answer carries CSP with frame-ancestors and
// Referrer-Policy, and only regular files inside the root are served: no symbolic link is followed.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocsServer, startDocsServer } from '../../src/docs/server.js';

/** One GET with the path sent exactly as written (fetch would normalize it first). */
function rawGet(
  server: DocsServer,
  path: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('docs server (issue 38, goal 3: "The docs server normalizes paths before redirecting, sends CSP, frame-ancestors and Referrer-Policy, and serves only regular files inside its root")', () => {
  let base: string;
  let server: DocsServer;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'docs-server-'));
    const root = join(base, 'dist');
    await mkdir(join(root, 'pt'), { recursive: true });
    await mkdir(join(root, 'en'), { recursive: true });
    await writeFile(join(root, 'index.html'), '<h1>home</h1>');
    await writeFile(join(root, 'pt', 'index.html'), '<h1>guia</h1>');
    await writeFile(join(root, 'en', 'index.html'), '<h1>guide</h1>');
    await writeFile(join(root, 'errors.html'), '<h1>errors</h1>');
    // Outside the root, and links to it from inside.
    await mkdir(join(base, 'secret'));
    await writeFile(join(base, 'secret', 'index.html'), 'SECRET FOLDER');
    await writeFile(join(base, 'secret.txt'), 'SECRET FILE');
    await symlink(join(base, 'secret.txt'), join(root, 'leak.txt'));
    await symlink(join(base, 'secret'), join(root, 'linked'));
    // A link inside the root to a file inside it is not followed either.
    await symlink(join(root, 'errors.html'), join(root, 'alias.html'));
    server = await startDocsServer({ root, host: '127.0.0.1', port: 0, sdkRoot: join(base, 'no-sdk') });
  });
  afterAll(async () => {
    await server?.close();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('redirects a folder without its slash to the normalized path on this host, never another', async () => {
    for (const path of [
      '/.//evil.example/..%2fpt',
      '//evil.example/..%2fpt',
      '/./%2fevil.example/..%2fpt',
      '/pt',
    ]) {
      const answer = await rawGet(server, path);
      expect(answer.status, path).toBe(301);
      expect(answer.headers.location, path).toBe('/pt/');
    }
    // A path that climbs out of the root is not found, whatever its spelling.
    for (const path of ['/..%2f..%2fsecret.txt', '/%2e%2e/secret.txt', '/pt/..%2f..%2fsecret/']) {
      const answer = await rawGet(server, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('SECRET');
    }
    for (const path of [
      '/.//evil.example/..%2fpt',
      '//evil.example/',
      '/\\evil.example/',
      '//evil.example/%2e%2e/pt',
    ]) {
      const location = (await rawGet(server, path)).headers.location;
      if (location !== undefined) expect(String(location), path).toMatch(/^\/[^/\\]/);
    }
  });

  it('sends a Content-Security-Policy with frame-ancestors, and Referrer-Policy, on every answer', async () => {
    for (const path of ['/', '/pt/', '/errors', '/pt', '/missing', '/sdk/']) {
      const { headers } = await rawGet(server, path);
      expect(headers['content-security-policy'], path).toMatch(/frame-ancestors 'none'/);
      expect(headers['content-security-policy'], path).toMatch(/default-src 'self'/);
      expect(headers['referrer-policy'], path).toBe('no-referrer');
      expect(headers['x-content-type-options'], path).toBe('nosniff');
    }
  });

  it('serves regular files inside the root only: no symbolic link is followed', async () => {
    expect((await rawGet(server, '/errors')).body).toContain('errors');
    for (const path of ['/leak.txt', '/linked/', '/linked/index.html', '/linked', '/alias', '/alias.html']) {
      const answer = await rawGet(server, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('SECRET');
    }
  });
});
