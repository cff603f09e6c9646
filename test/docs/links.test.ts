// The docs' own pages name the docs' real base: DOCS_URL when set, otherwise the host and port the
// docs server is served on, never a fixed http://127.0.0.1:3001/. Here the site is built for a
// port that is not the default, served on it, and every link of every page to the docs is followed.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildDocs, fillPlaceholders, rebased } from '../../src/docs/build.js';
import { clientVersions } from '../../src/docs/sdk-files.js';
import { type DocsServer, startDocsServer } from '../../src/docs/server.js';
import { testStorage } from '../helpers/database.js';
import { freePort } from '../helpers/server-process.js';

const PAGES = [
  '/',
  '/reference',
  '/errors',
  '/pt/',
  '/en/',
  '/pt/webhooks',
  '/en/webhooks',
  '/pt/mcp',
  '/en/mcp',
  '/pt/referencia',
  '/en/reference',
  '/openapi.json',
  '/en/openapi.json',
  '/pt/cliente-typescript',
  '/en/client-typescript',
  '/pt/cliente-php',
  '/en/client-php',
  '/pt/cliente-python',
  '/en/client-python',
  '/pt/cliente-mcp',
  '/en/client-mcp',
  '/pt/operador',
  '/en/operator-cli',
  '/pt/implantacao',
  '/en/deploy',
  '/pt/consola',
  '/en/console',
  // The compatibility policy in both languages (issue 39) and the changelogs it links to.
  '/pt/compatibilidade',
  '/en/compatibility',
  '/changelog/api',
  '/changelog/typescript',
  '/changelog/php',
  '/changelog/python',
  '/changelog/mcp',
];

// Nothing here depends on the storage: it runs in the pglite project only.
describe.runIf(testStorage() === 'pglite')('docs links: the real base, never a fixed one', () => {
  let work: string;
  let server: DocsServer;
  let base: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'docs-links-'));
    const port = await freePort();
    // What `serve` builds for DOCS_PORT without DOCS_URL.
    base = loadConfig({ DOCS_PORT: String(port) }).docsUrl;
    expect(base).toBe(`http://127.0.0.1:${port}`);
    await buildDocs(base, join(work, 'site'));
    await mkdir(join(work, 'sdk'));
    await writeFile(join(work, 'sdk/index.html'), '<h1>sdk</h1>');
    server = await startDocsServer({
      root: join(work, 'site'),
      sdkRoot: join(work, 'sdk'),
      host: '127.0.0.1',
      port,
      baseUrl: base,
    });
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('every page names the served port, and every link to the docs opens', async () => {
    const links = new Set<string>();
    for (const page of PAGES) {
      const response = await fetch(`${server.url}${page}`);
      expect(response.status, page).toBe(200);
      const text = await response.text();
      expect(text, page).not.toContain('127.0.0.1:3001');
      expect(text, page).not.toMatch(/\{\{(DOCS_URL|version:)/);
      for (const [url] of text.matchAll(/https?:\/\/127\.0\.0\.1:\d+[^\s"'<>`)\\]*/g)) {
        // Not the docs: the API's example address (/api/v1/partner) and the MCP server's own (8765).
        if (/^http:\/\/127\.0\.0\.1:\d+\/api\//.test(url) || url.includes(':8765/')) continue;
        expect(url.startsWith(`${base}/`) || url === base, `${page}: ${url}`).toBe(true);
        links.add(url.split('#')[0] as string);
      }
    }
    // The reference's first paragraph and contact, the error examples, the guide's doc_url, the MCP page.
    expect(links).toContain(`${base}/`);
    expect(links).toContain(`${base}/errors`);
    expect([...links].some((link) => link.startsWith(`${base}/sdk/`))).toBe(true);
    // And every relative link of the site's own pages (Redoc's pages link within themselves).
    for (const page of PAGES.filter((path) => !/json$|referencia$|reference$/.test(path))) {
      const html = await (await fetch(`${server.url}${page}`)).text();
      for (const [, href] of html.matchAll(/href="([^"]+)"/g)) {
        if (/^([a-z]+:|#)/i.test(href as string)) continue;
        links.add(new URL(href as string, `${base}${page}`).href.split('#')[0] as string);
      }
    }
    for (const link of links) {
      if (link.startsWith(`${base}/sdk/`) && link !== `${base}/sdk/`) continue; // packages: kit tests
      expect((await fetch(link)).status, link).toBe(200);
    }
  });

  it('a site built for another base (a runtime tree run with another DOCS_PORT or DOCS_URL) is served naming this one', async () => {
    const other = await startDocsServer({
      root: join(work, 'site'),
      sdkRoot: join(work, 'sdk'),
      host: '127.0.0.1',
      port: 0,
      baseUrl: 'https://docs.example.co.mz/parceiros/',
      builtFor: base,
    });
    try {
      for (const page of ['/pt/referencia', '/en/', '/openapi.json', '/errors', '/pt/mcp']) {
        const response = await fetch(`${other.url}${page}`);
        const text = await response.text();
        expect(text, page).not.toContain(base);
        expect(text, page).toContain('https://docs.example.co.mz/parceiros/');
        expect(Number(response.headers.get('content-length')), page).toBe(Buffer.byteLength(text));
      }
      const spec = (await (await fetch(`${other.url}/openapi.json`)).json()) as {
        info: { contact: { url: string } };
      };
      expect(spec.info.contact.url).toBe('https://docs.example.co.mz/parceiros/');
    } finally {
      await other.close();
    }
  });

  it('DOCS_URL wins, with a path: documents rebased and placeholders filled', async () => {
    const document = JSON.stringify({
      info: { description: 'em http://127.0.0.1:3001/.', contact: { url: 'http://127.0.0.1:3001/' } },
      example: { doc_url: 'http://127.0.0.1:3001/errors#validation_failed' },
    });
    const moved = rebased(document, 'https://docs.example.co.mz/parceiros/');
    expect(moved).not.toContain('127.0.0.1');
    expect(JSON.parse(moved).example.doc_url).toBe(
      'https://docs.example.co.mz/parceiros/errors#validation_failed',
    );
    const v = await clientVersions();
    expect(
      fillPlaceholders(
        'npm install -g {{DOCS_URL}}/sdk/invoicing-partner-mcp-{{version:mcp}}.tgz',
        'https://docs.example.co.mz/parceiros/',
        v,
      ),
    ).toBe(`npm install -g https://docs.example.co.mz/parceiros/sdk/invoicing-partner-mcp-${v.mcp}.tgz`);
    expect(() => fillPlaceholders('{{version:cobol}}', 'http://x', v)).toThrow(/cobol/);
  });
});
