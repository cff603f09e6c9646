// In a real browser (Debian's Chromium driven by playwright-core; scripts/ensure-chromium.sh
// installs it): a sandbox server started as `npm start` starts it, a real error's doc_url opens the
// catalog with that code's entry in view, the API reference renders in Portuguese and in English
// without console errors and without any request leaving the machine, with each operation's code
// samples in curl, TypeScript, PHP and Python and the webhook events, and the webhooks page's
// sample tabs switch language together. Screenshots go to test-artifacts/.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServe } from '../helpers/cli.js';
import { migratedDataDir, testStorage } from '../helpers/database.js';
import { freePort } from '../helpers/server-process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

// The sandbox of `npm start` is the embedded database: this runs in the pglite project only.
describe.runIf(testStorage() === 'pglite')('docs in a browser', () => {
  let dir: string;
  let server: ServeProcess;
  let browser: Browser;
  let docsUrl: string;
  let liveKey: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is required at ${CHROMIUM}: run scripts/ensure-chromium.sh (or set CHROMIUM_PATH)`,
      );
    }
    await mkdir(ARTIFACTS, { recursive: true });
    dir = await mkdtemp(join(tmpdir(), 'partner-sandbox-'));
    const dataDir = await migratedDataDir(join(dir, 'data'));
    server = await startServe(
      { DATA_DIR: dataDir, DOCS_PORT: String(await freePort()) },
      { args: ['--demo'] },
    );
    const ready = server.ready as { docs_url: string; demo: { live_key: { key: string } } };
    docsUrl = ready.docs_url;
    liveKey = ready.demo.live_key.key;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('opens the doc_url of a real error on the entry for its code', async () => {
    expect(docsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const answer = await fetch(`${server.apiBaseUrl}/invoices/999999`, {
      headers: { authorization: `Bearer ${liveKey}` },
    });
    expect(answer.status).toBe(404);
    const { error } = (await answer.json()) as { error: { code: string; doc_url: string } };
    expect(error.code).toBe('resource_not_found');
    expect(error.doc_url).toBe(`${docsUrl}errors#resource_not_found`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (failure) => problems.push(failure.message));
    const response = await page.goto(error.doc_url);
    expect(response?.status()).toBe(200);
    const entry = page.locator('#resource_not_found');
    expect(await entry.isVisible()).toBe(true);
    expect(await entry.locator('h2').innerText()).toContain('resource_not_found');
    expect(await entry.innerText()).toContain('HTTP 404');
    // The entry is the one in view (the page scrolled to it), not merely somewhere on the page.
    const box = await entry.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(200);
    await page.screenshot({ path: join(ARTIFACTS, 'docs-error-resource_not_found.png') });
    expect(problems).toEqual([]);
    await page.close();
  });

  /** A page that records console errors, failed requests and requests leaving the machine. */
  async function watchedPage() {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems: string[] = [];
    const outside: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (failure) => problems.push(failure.message));
    page.on('requestfailed', (request) => problems.push(`${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (answer) => {
      if (answer.status() >= 400) problems.push(`${answer.url()} answered ${answer.status()}`);
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol)) {
        outside.push(request.url());
      }
    });
    return { page, problems, outside };
  }

  it('renders the API reference in Portuguese without console errors or outside requests', async () => {
    const { page, problems, outside } = await watchedPage();
    const response = await page.goto(`${docsUrl}pt/referencia`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    await page
      .getByRole('heading', { name: /Partner API v1/ })
      .waitFor({ state: 'visible', timeout: 20_000 });
    // Opening the invoices tag in the sidebar shows its three operations, by their summaries.
    await page.getByText('invoices', { exact: true }).first().click();
    for (const summary of ['Listar facturas', 'Criar um rascunho de factura', 'Obter uma factura']) {
      await page.getByText(summary).first().waitFor({ state: 'visible', timeout: 20_000 });
    }
    expect(page.url()).toMatch(/#\/invoices$/);
    await page.screenshot({ path: join(ARTIFACTS, 'docs-reference.png') });
    // The webhooks: every event under its tag, with its payload.
    await page.getByText('webhooks', { exact: true }).first().click();
    await page.getByText('invoice.partially_paid', { exact: true }).first().click();
    await page.getByText('webhook-signature').first().waitFor({ state: 'visible', timeout: 20_000 });
    expect(page.url()).toMatch(/#\/webhooks\/invoicepartiallypaidevent$/);
    await page.screenshot({ path: join(ARTIFACTS, 'docs-reference-webhook.png') });
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it('renders the API reference in English, each operation with its samples in the four languages', async () => {
    const { page, problems, outside } = await watchedPage();
    const response = await page.goto(`${docsUrl}en/reference`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    await page.getByText('customers', { exact: true }).first().click();
    await page.getByText('Get a customer', { exact: true }).first().click();
    await page
      .getByText('$PARTNER_API_URL/customers/1042')
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    // The language menu of the sample offers exactly the four; each shows its own sample.
    const shown = [
      ['TypeScript', 'await api.customers.get(1042)'],
      ['PHP', '$api->customers->get(1042)'],
      ['Python', 'api.customers.get(1042)'],
      ['curl', '$PARTNER_API_URL/customers/1042'],
    ];
    let current = 'curl';
    for (const [language, text] of shown) {
      await page.getByRole('button', { name: current, exact: true }).first().click();
      const items = await page.getByRole('menuitem').allInnerTexts();
      expect(items.map((item) => item.trim())).toEqual(['curl', 'TypeScript', 'PHP', 'Python']);
      await page.getByRole('menuitem', { name: language }).first().click();
      await page.getByText(text!).first().waitFor({ state: 'visible', timeout: 20_000 });
      current = language!;
    }
    await page.screenshot({ path: join(ARTIFACTS, 'docs-reference-en.png') });
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it('switches the samples of the webhooks page to one language everywhere, and remembers it', async () => {
    const { page, problems, outside } = await watchedPage();
    await page.goto(`${docsUrl}en/webhooks`, { waitUntil: 'networkidle' });
    const visible = (language: string) => page.locator(`.samples pre[data-language="${language}"]`).first();
    expect(await visible('sh').isVisible()).toBe(true);
    expect(await visible('php').isVisible()).toBe(false);
    await page.locator('.samples label', { hasText: 'PHP' }).first().click();
    expect(await visible('php').isVisible()).toBe(true);
    expect(await visible('sh').isVisible()).toBe(false);
    expect(await visible('php').innerText()).toContain('Webhook::verify');
    await page.screenshot({ path: join(ARTIFACTS, 'docs-webhooks.png') });
    // The guide opens with the same language chosen in every block.
    await page.goto(`${docsUrl}en/`, { waitUntil: 'networkidle' });
    const blocks = await page.locator('.samples').count();
    expect(blocks).toBeGreaterThan(5);
    expect(await page.locator('.samples pre[data-language="php"]:visible').count()).toBe(blocks);
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it('opens the compatibility policy from the guide, and the API changelog from the policy', async () => {
    const { page, problems, outside } = await watchedPage();
    await page.goto(`${docsUrl}pt/`, { waitUntil: 'networkidle' });
    await page.locator('a[href="compatibilidade"]').first().click();
    await page.waitForURL(/\/pt\/compatibilidade$/);
    expect(await page.locator('h1').innerText()).toContain('Política de compatibilidade');
    expect(await page.locator('#cabecalhos-de-descontinuacao').isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'docs-compatibility.png') });
    await page.locator('a[href="../changelog/api"]').first().click();
    await page.waitForURL(/\/changelog\/api$/);
    expect(await page.locator('h1').innerText()).toContain('Changelog');
    expect(await page.getByText('Unreleased').first().isVisible()).toBe(true);
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it('opens the clients, operator and deployment pages in PT and EN from the home page, which links the packages at /sdk/', async () => {
    const { page, problems, outside } = await watchedPage();
    const pages: [string, RegExp][] = [
      ['pt/cliente-typescript', /O cliente TypeScript oficial/],
      ['en/client-typescript', /The official TypeScript client/],
      ['pt/cliente-php', /O cliente PHP oficial/],
      ['en/client-php', /The official PHP client/],
      ['pt/cliente-python', /O cliente Python oficial/],
      ['en/client-python', /The official Python client/],
      ['pt/cliente-mcp', /O servidor MCP \(Model Context Protocol\) oficial/],
      ['en/client-mcp', /The official MCP \(Model Context Protocol\) server/],
      ['pt/operador', /Linha de comandos do operador/],
      ['en/operator-cli', /Operator command line/],
      ['pt/implantacao', /Pôr o serviço de facturação em produção/],
      ['en/deploy', /Deploying the invoicing service/],
      ['pt/consola', /Consola de suporte/],
      ['en/console', /Support console/],
    ];
    for (const [path, text] of pages) {
      await page.goto(docsUrl, { waitUntil: 'networkidle' });
      await page.locator(`a[href="${path}"]`).first().click();
      await page.waitForURL(`${docsUrl}${path}`);
      expect(await page.locator('main').innerText(), path).toMatch(text);
      expect(await page.locator('html').getAttribute('lang'), path).toBe(path.slice(0, 2));
    }
    // /sdk/ itself is packed at its first request: test/clients/kit/sdk-first-request.test.ts
    // (npm run test:clients, beside the other packers).
    await page.goto(docsUrl, { waitUntil: 'networkidle' });
    expect(await page.locator('a[href="sdk/"]').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });
});
