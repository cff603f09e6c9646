// The docs site: built by one command into static files (here into a temporary folder), with one
// catalog entry per code of src/errors.ts, the guide and the webhooks page in Portuguese and
// English with their code samples in four languages, the reference in both languages, and served
// on its own port; errors point at it when DOCS_URL is not set.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildDocs, isCurrent } from '../../src/docs/build.js';
import { EXPLANATIONS } from '../../src/docs/error-catalog.js';
import { SAMPLE_LANGUAGES } from '../../src/docs/samples.js';
import { type DocsServer, startDocsServer } from '../../src/docs/server.js';
import { WEBHOOK_TYPES } from '../../src/docs/webhook-events.js';
import { ApiError, ERROR_CODES } from '../../src/errors.js';

const DOCS_URL = 'http://127.0.0.1:3001';

// Nothing here depends on the storage: it runs in the pglite project only.
describe('docs site', () => {
  let dir: string;
  let server: DocsServer;
  beforeAll(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'partner-docs-')), 'dist');
    await buildDocs(DOCS_URL, dir);
    server = await startDocsServer({ root: dir, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(join(dir, '..'), { recursive: true, force: true });
  });

  const get = (path: string) => fetch(`${server.url}${path}`, { redirect: 'manual' });

  it('has one catalog entry per error code, anchored at errors#<code>, from the error module', async () => {
    const html = await (await get('/errors')).text();
    for (const code of ERROR_CODES) {
      const error = new ApiError(code);
      const entry = new RegExp(
        `<section class="error" id="${code}">\\s*<h2><a href="#${code}">${code}</a><span class="status">HTTP ${error.statusCode}</span>`,
      );
      expect(html, code).toMatch(entry);
      expect(html).toContain(
        EXPLANATIONS[code].when.en.replace(/"/g, '&quot;').replace(/'/g, '&#39;').slice(0, 40),
      );
      expect(html).toContain(`${DOCS_URL}/errors#${code}`);
    }
    expect(html.match(/<section class="error" id=/g)).toHaveLength(ERROR_CODES.length);
  });

  it('has the guide in Portuguese and English with every topic', async () => {
    const pt = await (await get('/pt/')).text();
    const en = await (await get('/en/')).text();
    expect(pt).toContain('<html lang="pt">');
    expect(en).toContain('<html lang="en">');
    for (const anchor of [
      'idempotencia',
      'repeticoes-e-recuo',
      'sincronizacao-incremental-com-updated-since',
      'decimais',
      'limites-e-os-seus-cabecalhos',
      'permissoes-e-modos',
      'a-ordem-das-verificacoes',
      'paginacao-percorrer-uma-lista',
      'substituir-uma-chave-rotacao-e-chaves-mal-copiadas',
    ]) {
      expect(pt).toContain(`id="${anchor}"`);
    }
    for (const anchor of [
      'idempotency',
      'retries-and-backoff',
      'incremental-sync-with-updated-since',
      'decimals',
      'rate-limits-and-their-headers',
      'scopes-and-live-test-modes',
      'the-order-of-checks',
      'pagination-walking-a-list',
      'getting-started-with-a-key',
      'replacing-a-key-rolling-and-mistyped-keys',
    ]) {
      expect(en).toContain(`id="${anchor}"`);
    }
    // Links between pages resolve on this server.
    for (const href of ['../errors', 'reference', 'openapi.json', 'webhooks', '../sdk/'])
      expect(en).toContain(`href="${href}"`);
    for (const href of ['../errors', 'referencia', '../openapi.json', 'webhooks'])
      expect(pt).toContain(`href="${href}"`);
  });

  it('has the MCP server page in Portuguese and English, linked from the home page', async () => {
    const home = await (await get('/')).text();
    expect(home).toContain('href="pt/mcp"');
    expect(home).toContain('href="en/mcp"');
    const pt = await get('/pt/mcp');
    const en = await get('/en/mcp');
    expect([pt.status, en.status]).toEqual([200, 200]);
    const [ptHtml, enHtml] = [await pt.text(), await en.text()];
    expect(ptHtml).toContain('<html lang="pt">');
    expect(enHtml).toContain('<html lang="en">');
    for (const anchor of ['como-o-juntar-a-um-assistente', 'as-ferramentas', 'o-modelo-de-seguranca'])
      expect(ptHtml).toContain(`id="${anchor}"`);
    for (const anchor of ['add-it-to-an-assistant', 'the-tools', 'the-safety-model'])
      expect(enHtml).toContain(`id="${anchor}"`);
    expect(enHtml).toContain('href="../errors"');
  });

  it('shows the guide sections with their samples in curl, TypeScript, PHP and Python, in the page language', async () => {
    const blocks = (html: string) =>
      [...html.matchAll(/<div class="samples" data-sample="([A-Za-z]+)">([\s\S]*?)\n<\/div>\n/g)].map(
        (match) => ({ id: match[1], html: match[2]! }),
      );
    const pt = await (await get('/pt/')).text();
    const en = await (await get('/en/')).text();
    const guide = [
      'getPing',
      'errors',
      'idempotency',
      'retries',
      'pagination',
      'incrementalSync',
      'webhooks',
    ];
    for (const html of [pt, en]) {
      expect(blocks(html).map((block) => block.id)).toEqual(guide);
      for (const block of blocks(html)) {
        const languages = [...block.html.matchAll(/<pre data-language="([a-z]+)">/g)].map(
          (match) => match[1],
        );
        expect(languages).toEqual(SAMPLE_LANGUAGES.map((language) => language.id));
        expect(block.html).not.toMatch(/\[(pt|en)\]/);
      }
      expect(html).toContain('<script>');
    }
    expect(pt).toContain('A chave e o endereço vêm do ambiente');
    expect(pt).not.toContain('The key and the address come from the environment');
    expect(en).toContain('The key and the address come from the environment');
    expect(en).toContain('id="webhooks"');
  });

  it('has the webhooks page in Portuguese and English: every event, verification in four languages, retries, ordering, the cause', async () => {
    const pt = await get('/pt/webhooks');
    const en = await get('/en/webhooks');
    expect([pt.status, en.status]).toEqual([200, 200]);
    const [ptHtml, enHtml] = [await pt.text(), await en.text()];
    for (const anchor of [
      'eventos',
      'receber-e-verificar',
      'repeticoes',
      'ordem-e-duplicados',
      'a-causa-de-um-evento',
      'rodar-o-segredo',
    ])
      expect(ptHtml).toContain(`id="${anchor}"`);
    for (const anchor of [
      'events',
      'receiving-and-verifying',
      'retries',
      'ordering-and-duplicates',
      'the-cause-of-an-event',
      'rotating-the-secret',
    ])
      expect(enHtml).toContain(`id="${anchor}"`);
    for (const html of [ptHtml, enHtml]) {
      for (const type of WEBHOOK_TYPES) expect(html).toContain(`<td><code>${type}</code></td>`);
      expect(html).toContain('<div class="samples" data-sample="webhooks">');
      for (const helper of ['verifyWebhook', 'Webhook::verify', 'verify_webhook', 'openssl dgst'])
        expect(html).toContain(helper);
      expect(html).toContain('idempotency_key');
    }
    expect(enHtml).toContain('A receipt paid the rest');
    expect(ptHtml).toContain('Um recibo pagou o resto');
    const home = await (await get('/')).text();
    for (const href of ['pt/webhooks', 'en/webhooks', 'pt/referencia', 'en/reference'])
      expect(home).toContain(`href="${href}"`);
  });

  it('serves the reference in Portuguese and English, both documents and the home page; nothing outside the folder', async () => {
    const portuguese = await get('/pt/referencia');
    const english = await get('/en/reference');
    expect([portuguese.status, english.status]).toEqual([200, 200]);
    const [ptHtml, enHtml] = [await portuguese.text(), await english.text()];
    expect(ptHtml).toContain('Listar clientes');
    expect(enHtml).toContain('List customers');
    expect(enHtml).not.toContain('Listar clientes');
    for (const html of [ptHtml, enHtml]) {
      expect(html).not.toMatch(/<script[^>]+src="https?:/);
      expect(html).toContain('x-codeSamples');
      expect(html).toContain('invoice.partially_paid');
    }
    const chooser = await (await get('/reference')).text();
    for (const href of ['pt/referencia', 'en/reference', 'openapi.json', 'en/openapi.json'])
      expect(chooser).toContain(`href="${href}"`);
    expect(await (await get('/openapi.json')).json()).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Partner API v1 — serviço de facturação' },
    });
    expect(await (await get('/en/openapi.json')).json()).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Partner API v1 — invoicing service' },
    });
    expect((await get('/')).status).toBe(200);
    expect((await get('/pt')).headers.get('location')).toBe('/pt/');
    expect((await get('/nothing')).status).toBe(404);
    expect((await get('/%2e%2e/%2e%2e/package.json')).status).toBe(404);
    expect((await get('/..%2f..%2fpackage.json')).status).toBe(404);
    expect((await fetch(`${server.url}/errors`, { method: 'POST' })).status).toBe(405);
  });

  it('has the compatibility policy in Portuguese and English, linked from the guides and the home page, and the changelogs of the API and the clients', async () => {
    const home = await (await get('/')).text();
    for (const href of ['pt/compatibilidade', 'en/compatibility', 'changelog/api'])
      expect(home).toContain(`href="${href}"`);
    expect(await (await get('/pt/')).text()).toContain('href="compatibilidade"');
    expect(await (await get('/en/')).text()).toContain('href="compatibility"');
    const pt = await (await get('/pt/compatibilidade')).text();
    const en = await (await get('/en/compatibility')).text();
    for (const anchor of [
      'o-que-nunca-muda-dentro-da-v1',
      'cabecalhos-de-descontinuacao',
      'prazo-de-aviso',
      'quanto-tempo-vive-a-v1',
    ])
      expect(pt).toContain(`id="${anchor}"`);
    for (const anchor of [
      'what-never-changes-within-v1',
      'deprecation-headers',
      'notice-period',
      'how-long-v1-lives',
    ])
      expect(en).toContain(`id="${anchor}"`);
    expect(en).toContain('<strong>12 months</strong>');
    expect(en).toContain('<strong>24 months</strong>');
    for (const name of ['api', 'typescript', 'php', 'python', 'mcp']) {
      expect(pt).toContain(`href="../changelog/${name}"`);
      const changelog = await get(`/changelog/${name}`);
      expect(changelog.status, name).toBe(200);
      const html = await changelog.text();
      expect(html).toContain('Keep a Changelog');
      expect(html).toMatch(/<h2 id="1-0-0-2026-11-2\d">/);
    }
  });

  it('issue 39: the compatibility policy is offered in Portuguese beside the English, each linking the other and the changelogs, and says what may change without notice and who gets deprecation notices', async () => {
    const pt = await get('/pt/compatibilidade');
    const en = await get('/en/compatibility');
    expect(pt.status).toBe(200);
    expect(en.status).toBe(200);
    const ptHtml = await pt.text();
    const enHtml = await en.text();
    expect(ptHtml).toContain('<html lang="pt">');
    expect(ptHtml).toContain('href="../en/compatibility"');
    expect(enHtml).toContain('href="../pt/compatibilidade"');
    for (const html of [ptHtml, enHtml])
      for (const name of ['api', 'typescript', 'php', 'python', 'mcp'])
        expect(html).toContain(`href="../changelog/${name}"`);
    for (const anchor of [
      'o-que-pode-mudar-sem-aviso',
      'quem-recebe-os-avisos-de-descontinuacao',
      'se-integra-para-muitas-empresas',
    ])
      expect(ptHtml).toContain(`id="${anchor}"`);
    for (const anchor of [
      'what-may-change-without-notice',
      'who-gets-deprecation-notices',
      'if-you-integrate-for-many-companies',
    ])
      expect(enHtml).toContain(`id="${anchor}"`);
    // The guides' links into the policy, and the policy's into the guides, land on real anchors.
    const ptGuide = await (await get('/pt/')).text();
    const enGuide = await (await get('/en/')).text();
    expect(ptGuide).toContain('href="compatibilidade#o-que-pode-mudar-sem-aviso"');
    expect(enGuide).toContain('href="compatibility#what-may-change-without-notice"');
    expect(ptHtml).toContain('href="./#limites-e-os-seus-cabecalhos"');
    expect(ptGuide).toContain('id="limites-e-os-seus-cabecalhos"');
    expect(enHtml).toContain('href="./#rate-limits-and-their-headers"');
    expect(enGuide).toContain('id="rate-limits-and-their-headers"');
    expect(await (await get('/pt/webhooks')).text()).toContain('id="repeticoes"');
    expect(await (await get('/en/webhooks')).text()).toContain('id="retries"');
  });

  it('issue 39: the guide takes tax ids from support or the console, never from a hint the policy calls changeable', async () => {
    for (const [path, id] of [
      ['/pt/', 'impostos'],
      ['/en/', 'taxes'],
    ] as const) {
      const html = await (await get(path)).text();
      const start = html.indexOf(`<h2 id="${id}"`);
      expect(start, path).toBeGreaterThan(0);
      const section = html.slice(start, html.indexOf('<h2', start + 1));
      expect(section, path).toContain('taxes list --company ID');
      expect(section, path).toMatch(/partner view|vista de parceiro/);
      expect(section, path).not.toContain('Impostos que esta empresa pode usar');
    }
  });

  it('knows when a build is current: another docs URL or changed sources rebuild', async () => {
    expect(await isCurrent(DOCS_URL, dir)).toBe(true);
    expect(await isCurrent('https://docs.example.co.mz', dir)).toBe(false);
    const stamp = JSON.parse(await readFile(join(dir, 'build.json'), 'utf8'));
    expect(stamp.docs_url).toBe(DOCS_URL);
  });

  it('defaults doc_url to the local docs server, on its own port', () => {
    expect(loadConfig({}).docsUrl).toBe('http://127.0.0.1:3001');
    expect(loadConfig({}).docsPort).toBe(3001);
    expect(loadConfig({ DOCS_PORT: '4100', HOST: '0.0.0.0' }).docsUrl).toBe('http://127.0.0.1:4100');
    expect(loadConfig({ DOCS_PORT: 'off' }).docsPort).toBeNull();
    expect(loadConfig({ DOCS_URL: 'https://docs.example.co.mz/api/' }).docsUrl).toBe(
      'https://docs.example.co.mz/api',
    );
    expect(() => loadConfig({ DOCS_PORT: '0' })).toThrow(/DOCS_PORT/);
  });
});
