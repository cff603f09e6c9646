// issue 40, in a real browser (Debian's Chromium through playwright-core; axe-core from npm
// evaluated in each page): `serve --demo` with its console, as `npm start` starts it, on the
// embedded PGlite and on PostgreSQL. The demo administrator sets the account up (password and a
// TOTP code computed here with otplib), signs in with the keyboard only, creates a key (shown once,
// it works on the API) and revokes it (the API refuses it from then on), finds a request by its
// id, and every page passes axe-core with no serious or critical violation and no console error
// (the strict CSP would report any inline script). `npm run test:console` runs it.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from 'otplib';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type ServeProcess, startServe } from '../../helpers/cli.js';
import { createEmptyPostgresDatabase, migratedDataDir, testStorage } from '../../helpers/database.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'uma frase longa e secreta';
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const require = createRequire(import.meta.url);

interface Ready {
  console_url: string;
  console_admin_setup_link: string;
  demo: { id: number; live_key: { key: string } };
}

describe(`support console in a browser (${testStorage()})`, () => {
  let dir: string;
  let dropDatabase: (() => Promise<void>) | null = null;
  let server: ServeProcess;
  let browser: Browser;
  let ready: Ready;
  let page: Page;
  let secret: string;
  const problems: string[] = [];
  let axeSource: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is required at ${CHROMIUM}: run scripts/ensure-chromium.sh (or set CHROMIUM_PATH)`,
      );
    }
    axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
    dir = await mkdtemp(join(tmpdir(), 'console-browser-'));
    const env: Record<string, string> = { CONSOLE_PORT: '0' };
    if (testStorage() === 'pglite') {
      env.DATA_DIR = await migratedDataDir(join(dir, 'data'));
    } else {
      const database = await createEmptyPostgresDatabase(inject('postgresTemplate'));
      dropDatabase = database.drop;
      env.DATABASE_URL = database.url;
      env.DATA_DIR = join(dir, 'data');
    }
    server = await startServe(env, { args: ['--demo'] });
    ready = server.ready as unknown as Ready;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (failure) => problems.push(failure.message));
    page.on('dialog', (dialog) => {
      problems.push(`a dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await dropDatabase?.();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** axe-core on the page as it is: no serious or critical violation. A screenshot for the docs. */
  async function accessible(where: string): Promise<void> {
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({
      path: join(ARTIFACTS, `console-${testStorage()}-${where.replace(/[^a-z]+/g, '-')}.png`),
    });
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
        }
      ).axe;
      const result = await axe.run();
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    expect(
      violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
      where,
    ).toEqual([]);
  }

  it('issue 40: npm start prints the console and the demo administrator setup link; setup takes a password and a TOTP code', async () => {
    expect(ready.console_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(ready.console_admin_setup_link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/setup\/[A-Za-z0-9_-]{43}$/);
    await page.goto(ready.console_admin_setup_link);
    await accessible('setup');
    secret = (await page.locator('#totp-secret').innerText()).trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.locator('.qr svg').count()).toBe(1);
    await page.fill('#password', PASSWORD);
    await page.fill('#confirm', PASSWORD);
    await page.fill('#code', await generate({ secret }));
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('.notice').innerText()).toContain('Conta configurada');
    expect(problems).toEqual([]);
  });

  it('issue 40: a keyboard-only login', async () => {
    await page.goto(`${ready.console_url}login`);
    await accessible('login');
    for (let presses = 0; presses < 15; presses++) {
      if ((await page.evaluate(() => document.activeElement?.id)) === 'email') break;
      await page.keyboard.press('Tab');
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    await page.keyboard.type('admin@demo.invalid');
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    // The setup used the current step's code: the next step's (within the one-step tolerance).
    await page.keyboard.type(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/companies$/);
    expect(await page.locator('h1').innerText()).toBe('Empresas');
    await accessible('companies');
    expect(problems).toEqual([]);
  });

  it('issue 40: a key created in the console is shown once and works on the API; revoked, the API refuses it', async () => {
    const company = ready.demo.id;
    await page.goto(`${ready.console_url}companies/${company}`);
    await accessible('company');
    await page.goto(`${ready.console_url}companies/${company}/keys`);
    await accessible('keys');
    await page.selectOption('#mode', 'live');
    await page.click('form[action$="/keys"] button[type=submit]');
    const key = (await page.locator('#new-key').innerText()).trim();
    expect(key).toMatch(/^svc_sk_live_/);
    await accessible('key created');
    const ping = () => fetch(`${server.apiBaseUrl}/ping`, { headers: { authorization: `Bearer ${key}` } });
    expect((await ping()).status).toBe(200);
    // Shown once: the keys page again shows its prefix only.
    await page.goto(`${ready.console_url}companies/${company}/keys`);
    expect(await page.content()).not.toContain(key);

    const row = page.locator('tbody tr', { hasText: key.slice(0, 16) });
    expect(await row.count()).toBe(1);
    await row.locator('a').first().click();
    await page.waitForURL(/\/keys\/\d+$/);
    await accessible('key');
    await page.check('#confirm');
    await page.click('form[action$="/revoke"] button[type=submit]');
    await page.waitForURL(/done=revoked/);
    expect(await page.locator('#key-state').innerText()).toBe('revogada');
    // From the moment the console says it is revoked, the API refuses it.
    const refused = await ping();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('api_key_revoked');
    expect(problems).toEqual([]);
  });

  it('issue 40: a request found by its id (X-Request-Id); the audit trail names the staff member', async () => {
    const answer = await fetch(`${server.apiBaseUrl}/ping`, {
      headers: { authorization: `Bearer ${ready.demo.live_key.key}` },
    });
    const requestId = answer.headers.get('x-request-id') as string;
    expect(requestId).toMatch(/^req_/);
    await page.goto(`${ready.console_url}requests`);
    await accessible('requests');
    // The request log is written in batches: wait until it holds the request, asking outside the
    // page (the session's cookies, no page load), so that no 404 of the wait reaches the console.
    await vi.waitFor(
      async () => {
        const found = await page.request.get(`${ready.console_url}requests/${requestId}`);
        expect(found.status()).toBe(200);
      },
      { timeout: 20_000, interval: 500 },
    );
    await page.goto(`${ready.console_url}requests`);
    await page.fill('#request_id', requestId);
    await page.click('form[action="/requests"] button[type=submit]');
    await page.waitForLoadState();
    expect(await page.locator('h1').innerText()).toContain(requestId);
    expect(await page.locator('#request-status').innerText()).toBe('200');
    await accessible('request');
    await page.goto(`${ready.console_url}audit`);
    await accessible('audit');
    expect(await page.locator('main').innerText()).toContain('console:admin@demo.invalid');
    await page.goto(`${ready.console_url}staff`);
    await accessible('staff');
    // English one switch away.
    await page.click('header a[lang=en]');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.locator('h1').innerText()).toBe('Staff');
    await accessible('staff (en)');
    expect(problems).toEqual([]);
  });

  it('issue 40: the usage chart drawn from real traffic, its table beside it, accessible', async () => {
    const company = ready.demo.id;
    await vi.waitFor(
      async () => {
        await page.goto(`${ready.console_url}usage?company=${company}&window=24h`);
        const requests = Number(await page.locator('td[data-usage="requests"]').innerText());
        expect(requests).toBeGreaterThanOrEqual(2);
      },
      { timeout: 20_000, interval: 500 },
    );
    expect(await page.locator('svg#chart-status rect').count()).toBeGreaterThan(0);
    expect(await page.locator('svg#chart-latency polyline').count()).toBe(2);
    await accessible('usage');
    // The charts, for the docs' screenshot (below the totals table).
    await page.locator('#chart-status').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, `console-${testStorage()}-usage-chart.png`) });
    expect(problems).toEqual([]);
  });
});
