// Every operator command through the real bin/invoicing, while a real `serve` runs on the same
// database (PGlite project: the commands go through the server's admin socket; PostgreSQL project:
// they open the database themselves). Changes must hold on the server's very next request.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import {
  apiCall,
  type CliStorage,
  cliJson,
  commandJson,
  createCliStorage,
  PROCESS_TEST_TIMEOUT_MS,
  runCli,
  runInProcess,
  type ServeProcess,
  startServe,
} from '../helpers/cli.js';
import { testStorage } from '../helpers/database.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';

interface Company {
  id: number;
  name: string;
  nuit: string | null;
  partner_api_enabled: boolean;
}
interface CreatedKey {
  id: number;
  key: string;
  mode: string;
  scopes: string[];
  expires_at: string;
}

/** Every timestamp in a JSON answer. */
function offsetsOf(value: unknown): string[] {
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}T\d{2}:/.test(value) ? [value] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(offsetsOf);
}

const OPERATOR_DOC = readFileSync(new URL('../../docs/operator-cli.md', import.meta.url), 'utf8');

/**
 * The top-level keys docs/operator-cli.md gives for a command's `--json` (`{id, name, ...}`), one
 * list per row of the command that gives them (a command of two forms has a row for each).
 */
function documentedShapes(name: string): string[][] {
  return OPERATOR_DOC.split('\n')
    .filter((line) => line.startsWith(`| \`${name}`) && /[ `]/.test(line.charAt(name.length + 3)))
    .map(shapeOfRow)
    .filter((shape): shape is string[] => shape !== null);
}

function shapeOfRow(row: string): string[] | null {
  const printed = row.split(' | ').at(-1)?.replace(/ \|$/, '').trim();
  if (!printed?.startsWith('`{')) return null;
  const inner = printed.slice(2, printed.lastIndexOf('}'));
  const keys: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of inner) {
    if (char === '{' || char === '[') depth++;
    if (char === '}' || char === ']') depth--;
    if (char === ',' && depth === 0) {
      keys.push(current);
      current = '';
    } else current += char;
  }
  keys.push(current);
  return keys.map((key) => key.split(':')[0]?.trim() ?? '').sort();
}

const ALL_SCOPES = [
  'customers:read',
  'customers:write',
  'products:read',
  'products:write',
  'invoices:read',
  'invoices:write',
  'payments:read',
];

describe(`operator CLI next to a running server (${testStorage()})`, {
  timeout: PROCESS_TEST_TIMEOUT_MS,
}, () => {
  let storage: CliStorage;
  let server: ServeProcess;
  let receiver: Receiver;
  let env: Record<string, string>;
  let company: Company;
  let key: CreatedKey;
  let idempotency = 0;
  const nextIdempotencyKey = () => `cli-test-${Date.now()}-${++idempotency}`;

  beforeAll(async () => {
    storage = await createCliStorage();
    // Plain http to loopback: the webhook commands below deliver to a receiver of this test.
    // (English asked for: this file asserts the command line's English texts)
    env = { ...storage.env, WEBHOOK_ALLOW_HTTP: 'true', INVOICING_LANG: 'en' };
    // On PGlite the quick start (npm start: serve --demo); on PostgreSQL plain serve.
    const args = storage.kind === 'pglite' ? ['--demo'] : [];
    [server, receiver] = await Promise.all([startServe(env, { json: false, args }), startReceiver()]);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await storage?.close();
  });

  it('serve prints a banner with a working curl example', async () => {
    const banner = server.stdout();
    expect(banner).toContain(`Partner API v1 listening on ${server.apiBaseUrl}`);
    const curl = /curl -H "Authorization: Bearer ([^"]+)" (\S+)/.exec(banner);
    expect(curl?.[2]).toBe(`${server.apiBaseUrl}/ping`);
    if (storage.kind === 'pglite') {
      // A fresh embedded database and --demo: the demo company is created and its keys printed once.
      expect(banner).toContain('First start: demo company');
      expect(banner).toMatch(/test key \(read only\): +svc_sk_test_/);
      const liveKey = curl?.[1] as string;
      expect(liveKey).toMatch(/^svc_sk_live_/);
      const ping = await apiCall(server.apiBaseUrl, liveKey, '/ping');
      expect(ping.status).toBe(200);
      expect(ping.body.data.tenant_name).toBe('Mercearia Baía de Maputo, Lda');
      // serve holds DATA_DIR: its lock names it, and the admin socket is private.
      const lock = JSON.parse(readFileSync(join(env.DATA_DIR as string, 'invoicing.lock'), 'utf8'));
      expect(lock).toMatchObject({ pid: server.child.pid, role: 'serve' });
    } else {
      // PostgreSQL without --demo: nothing is created, the banner says how to create a company and a key.
      expect(banner).toContain('bin/invoicing companies create --name');
      expect(banner).toContain('bin/invoicing keys create --company ID');
      expect(curl?.[1]).toBe('<key>');
      expect((await cliJson<{ companies: Company[] }>(['companies', 'list'], env)).companies).toEqual([]);
    }
  });

  it('companies create / list / enable-api: JSON shapes and text', async () => {
    company = await commandJson<Company>(
      ['companies', 'create', '--name', 'Loja do Chiveve, Lda', '--nuit', '400111222'],
      env,
    );
    expect(company).toEqual({
      id: expect.any(Number),
      name: 'Loja do Chiveve, Lda',
      nuit: '400111222',
      partner_api_enabled: false,
    });

    const text = await runInProcess(['companies', 'create', '--name', 'Padaria Xipamanine'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Company \d+ created: Padaria Xipamanine\.\n/);
    expect(text.stdout).toContain('bin/invoicing companies enable-api');

    const list = await commandJson<{ companies: Company[] }>(['companies', 'list'], env);
    expect(list.companies.map((c) => c.name)).toEqual(
      expect.arrayContaining(['Loja do Chiveve, Lda', 'Padaria Xipamanine']),
    );
    const table = await runInProcess(['companies', 'list'], env);
    expect(table.stdout).toMatch(/ID +NAME +NUIT +PARTNER API/);
    expect(table.stdout).toContain('Loja do Chiveve, Lda');

    const enabled = await commandJson<Company>(['companies', 'enable-api', String(company.id)], env);
    expect(enabled).toEqual({ ...company, partner_api_enabled: true });
    company = enabled;
  });

  it('keys create: shown once, works at once on the running server; keys list never shows secrets', async () => {
    key = await commandJson<CreatedKey>(['keys', 'create', '--company', String(company.id)], env);
    expect(key).toMatchObject({ id: expect.any(Number), mode: 'live', scopes: ALL_SCOPES });
    expect(key.key).toMatch(/^svc_sk_live_[A-Za-z0-9]{32,}$/);
    const days = (Date.parse(key.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(days).toBeLessThanOrEqual(365);

    const ping = await apiCall(server.apiBaseUrl, key.key, '/ping');
    expect(ping.status).toBe(200);
    expect(ping.body.data).toMatchObject({ tenant_id: company.id, mode: 'live', scopes: ALL_SCOPES });

    const test = await commandJson<CreatedKey>(
      [
        'keys',
        'create',
        '--company',
        String(company.id),
        '--mode',
        'test',
        '--scopes',
        'customers:read,products:read',
        '--days',
        '7',
      ],
      env,
    );
    expect(test).toMatchObject({ mode: 'test', scopes: ['customers:read', 'products:read'] });
    expect(test.key).toMatch(/^svc_sk_test_/);
    expect((Date.parse(test.expires_at) - Date.now()) / 86_400_000).toBeCloseTo(7, 1);
    expect((await apiCall(server.apiBaseUrl, test.key, '/ping')).body.data.mode).toBe('test');
    expect((await apiCall(server.apiBaseUrl, test.key, '/invoices')).body.error.code).toBe(
      'insufficient_scope',
    );

    const text = await runInProcess(
      ['keys', 'create', '--company', String(company.id), '--scopes', 'all', '--days', '30'],
      env,
    );
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/key: +svc_sk_live_/);
    expect(text.stdout).toContain('shown only this once');

    const listed = await runInProcess(['keys', 'list', '--company', String(company.id), '--json'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.stdout).not.toContain(test.key);
    const keys = JSON.parse(listed.stdout) as { company_id: number; keys: Record<string, unknown>[] };
    expect(keys.company_id).toBe(company.id);
    expect(keys.keys.map((k) => k.id)).toEqual(expect.arrayContaining([key.id, test.id]));
    for (const listedKey of keys.keys) {
      expect(Object.keys(listedKey).sort()).toEqual(
        [
          'created_at',
          'days_left',
          'display_prefix',
          'expires_at',
          'id',
          'last_used_at',
          'mode',
          'revoked_at',
          'scopes',
          'status',
        ].sort(),
      );
      expect(String(listedKey.display_prefix).length).toBeLessThan(20);
    }
    const table = await runInProcess(['keys', 'list', '--company', String(company.id)], env);
    expect(table.stdout).toMatch(/ID +PREFIX +MODE +STATUS +DAYS LEFT +EXPIRES +LAST USED/);
    expect(table.stdout).not.toContain(key.key);
  });

  it('keys revoke holds on the very next request (401 api_key_revoked)', async () => {
    const extra = await commandJson<CreatedKey>(['keys', 'create', '--company', String(company.id)], env);
    expect((await apiCall(server.apiBaseUrl, extra.key, '/ping')).status).toBe(200);
    const revoked = await commandJson<{ id: number; revoked_at: string }>(
      ['keys', 'revoke', String(extra.id)],
      env,
    );
    expect(revoked).toEqual({ id: extra.id, revoked_at: expect.any(String) });
    const next = await apiCall(server.apiBaseUrl, extra.key, '/ping');
    expect(next.status).toBe(401);
    expect(next.body.error.code).toBe('api_key_revoked');
    const status = await commandJson<{ keys: { id: number; status: string }[] }>(
      ['keys', 'list', '--company', String(company.id)],
      env,
    );
    expect(status.keys.find((k) => k.id === extra.id)?.status).toBe('revoked');
    // The other keys still work.
    expect((await apiCall(server.apiBaseUrl, key.key, '/ping')).status).toBe(200);
  });

  it('companies disable-api holds on the very next request (403 partner_api_disabled); enable-api restores', async () => {
    // Through the real executable, as an operator runs it (decisions.md: "every change takes
    // effect on the server's next request").
    const disabled = await cliJson<Company>(['companies', 'disable-api', String(company.id)], env);
    expect(disabled.partner_api_enabled).toBe(false);
    const refused = await apiCall(server.apiBaseUrl, key.key, '/customers');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('partner_api_disabled');

    // In this process: the command returns once the running server has applied the change
    // (issue 39, goal 3), so the very next request sees it, however loaded the machine.
    const text = await runInProcess(['companies', 'enable-api', String(company.id)], env);
    expect(text.stdout).toContain(`Partner API enabled for company ${company.id}`);
    expect((await apiCall(server.apiBaseUrl, key.key, '/customers')).status).toBe(200);
  });

  it('taxes create: for a company or global, never both or neither', async () => {
    const own = await commandJson<Record<string, unknown>>(
      ['taxes', 'create', '--company', String(company.id), '--name', 'IVA 16%', '--rate', '16'],
      env,
    );
    expect(own).toEqual({ id: expect.any(Number), company_id: company.id, name: 'IVA 16%', rate: '16' });
    const global = await commandJson<Record<string, unknown>>(
      ['taxes', 'create', '--global', '--name', 'Isento', '--rate', '0'],
      env,
    );
    expect(global).toMatchObject({ id: expect.any(Number), company_id: null, name: 'Isento' });

    // decisions.md, "Products": `bin/invoicing taxes list --company ID`, the company's own and the
    // global ones, never another company's.
    const stranger = await commandJson<Company>(['companies', 'create', '--name', 'Vizinha, Lda'], env);
    await commandJson(
      ['taxes', 'create', '--company', String(stranger.id), '--name', 'Alheio', '--rate', '3'],
      env,
    );
    const listed = await commandJson<{ company_id: number; taxes: Record<string, unknown>[] }>(
      ['taxes', 'list', '--company', String(company.id)],
      env,
    );
    expect(listed.company_id).toBe(company.id);
    expect(listed.taxes).toContainEqual({ id: own.id, company_id: company.id, name: 'IVA 16%', rate: '16' });
    expect(listed.taxes).toContainEqual({ id: global.id, company_id: null, name: 'Isento', rate: '0' });
    expect(listed.taxes.every((tax) => tax.company_id === company.id || tax.company_id === null)).toBe(true);
    const text = await runInProcess(['taxes', 'list', '--company', String(company.id)], env);
    expect(text.stdout).toMatch(new RegExp(`^ +${own.id} +IVA 16% +16% +company ${company.id}$`, 'm'));
    expect(text.stdout).not.toContain('Alheio');

    // The company tax is usable on a product at once.
    const product = await apiCall(server.apiBaseUrl, key.key, '/products', {
      method: 'POST',
      idempotencyKey: nextIdempotencyKey(),
      body: {
        name: 'Capulana estampada',
        type: 'GOODS',
        inventory: 'NON_INVENTORY',
        price: 350,
        tax_id: own.id,
      },
    });
    expect(product.status).toBe(201);
    expect(product.body.data.tax_rate).toBe(16);

    for (const args of [
      ['taxes', 'create', '--name', 'X', '--rate', '5'],
      ['taxes', 'create', '--company', String(company.id), '--global', '--name', 'X', '--rate', '5'],
    ]) {
      const refused = await runInProcess(args, env);
      expect(refused.code).toBe(2); // wrong usage
      expect(refused.stderr).toContain('exactly one of --company ID or --global');
    }
    const badRate = await runInProcess(['taxes', 'create', '--global', '--name', 'X', '--rate', '250'], env);
    expect(badRate.code).toBe(2); // a bad flag value is wrong usage
    expect(badRate.stderr).toMatch(/^error: rate must be a percentage/);
  });

  it('customers create --global: visible to every company through the API', async () => {
    const created = await commandJson<Record<string, unknown>>(
      [
        'customers',
        'create',
        '--global',
        '--name',
        'Cliente Balcão Beira',
        '--email',
        'balcao@exemplo.co.mz',
        '--nuit',
        '999999998',
        '--phone',
        '+258 84 000 0000',
      ],
      env,
    );
    expect(created).toMatchObject({
      id: expect.any(Number),
      name: 'Cliente Balcão Beira',
      email: 'balcao@exemplo.co.mz',
      nuit: '999999998',
      phone: '+258 84 000 0000',
    });
    const read = await apiCall(server.apiBaseUrl, key.key, `/customers/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.name).toBe('Cliente Balcão Beira');

    const notGlobal = await runInProcess(['customers', 'create', '--name', 'Sem empresa'], env);
    expect(notGlobal.code).toBe(2);
    expect(notGlobal.stderr).toContain('only global customers');
  });

  it('invoices issue / cancel, payments record, movements record, pos pending', async () => {
    const write = (path: string, body: unknown) =>
      apiCall(server.apiBaseUrl, key.key, path, {
        method: 'POST',
        body,
        idempotencyKey: nextIdempotencyKey(),
      });
    const customer = await write('/customers', {
      name: 'Hotel Girassol',
      type: 'company',
      nuit: '400333444',
    });
    expect(customer.status).toBe(201);
    const product = await write('/products', {
      name: 'Manutenção de frio',
      type: 'SERVICES',
      inventory: 'NON_INVENTORY',
      price: 500,
    });
    expect(product.status).toBe(201);
    const draft = (quantity: number) =>
      write('/invoices', {
        customer_id: customer.body.data.id,
        invoice_date: '2026-03-10',
        items: [{ product_id: product.body.data.id, quantity, price: 500 }],
      });
    const first = await draft(2);
    expect(first.status).toBe(201);
    const invoiceId = first.body.data.id as number;

    const issued = await commandJson<{ id: number; invoice_code: string; status: string }>(
      ['invoices', 'issue', String(invoiceId)],
      env,
    );
    expect(issued).toMatchObject({ id: invoiceId, status: 'unpaid' });
    expect(issued.invoice_code).not.toMatch(/^DRAFT-/);
    const read = await apiCall(server.apiBaseUrl, key.key, `/invoices/${invoiceId}`);
    expect(read.body.data).toMatchObject({
      status: 'unpaid',
      invoice_code: issued.invoice_code,
      remaining_amount: '1000.00',
    });
    const again = await runInProcess(['invoices', 'issue', String(invoiceId)], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('only a draft can be issued');

    const part = await commandJson<Record<string, unknown>>(
      [
        'payments',
        'record',
        '--invoice',
        String(invoiceId),
        '--amount',
        '400',
        '--date',
        '2026-03-12',
        '--method',
        'mpesa',
      ],
      env,
    );
    expect(part).toMatchObject({
      id: expect.any(Number),
      invoice_id: invoiceId,
      amount: '400.00',
      status: 'partially_paid',
    });
    const tooMuch = await runInProcess(
      ['payments', 'record', '--invoice', String(invoiceId), '--amount', '600.01'],
      env,
    );
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.stderr).toContain('exceeds what remains');
    const rest = await runInProcess(
      ['payments', 'record', '--invoice', String(invoiceId), '--amount', '600.00'],
      env,
    );
    expect(rest.code).toBe(0);
    expect(rest.stdout).toMatch(/^Receipt \d+ recorded\./);
    expect(rest.stdout).toMatch(/status: +paid/);
    const paid = await apiCall(server.apiBaseUrl, key.key, `/invoices/${invoiceId}`);
    expect(paid.body.data).toMatchObject({
      status: 'paid',
      paid_amount: '1000.00',
      remaining_amount: '0.00',
    });

    const salary = await commandJson<Record<string, unknown>>(
      ['movements', 'record', '--company', String(company.id), '--kind', 'salary', '--amount', '18500.00'],
      env,
    );
    expect(salary).toEqual({ id: expect.any(Number), kind: 'salary', amount: '18500.00' });
    const supplier = await commandJson<Record<string, unknown>>(
      [
        'movements',
        'record',
        '--company',
        String(company.id),
        '--kind',
        'supplier_payment',
        '--amount',
        '4200.5',
        '--date',
        '2026-03-01',
      ],
      env,
    );
    expect(supplier).toMatchObject({ kind: 'supplier_payment', amount: '4200.50' });
    const badKind = await runInProcess(
      ['movements', 'record', '--company', String(company.id), '--kind', 'rent', '--amount', '1'],
      env,
    );
    expect(badKind.code).toBe(2);
    expect(badKind.stderr).toContain('kind must be one of salary, supplier_payment');
    const listed = await apiCall(server.apiBaseUrl, key.key, '/payments');
    const ids = (listed.body.data as { id: number }[]).map((p) => p.id);
    expect(ids).toContain(part.id);
    expect(ids).not.toContain(salary.id);
    expect(ids).not.toContain(supplier.id);

    const second = await draft(1);
    const cancelled = await commandJson<Record<string, unknown>>(
      ['invoices', 'cancel', String(second.body.data.id)],
      env,
    );
    expect(cancelled).toEqual({ id: second.body.data.id, status: 'cancelled' });
    expect(
      (await apiCall(server.apiBaseUrl, key.key, `/invoices/${second.body.data.id}`)).body.data.status,
    ).toBe('cancelled');
    const cancelText = await runInProcess(['invoices', 'cancel', String(invoiceId)], env);
    expect(cancelText.code).toBe(0);
    expect(cancelText.stdout).toMatch(/^Invoice \d+ cancelled\./);

    const pending = await commandJson<{ company_id: number; products: { id: number }[] }>(
      ['pos', 'pending', '--company', String(company.id)],
      env,
    );
    expect(pending.company_id).toBe(company.id);
    expect(pending.products.map((p) => p.id)).toContain(product.body.data.id);
    const pendingText = await runInProcess(['pos', 'pending', '--company', String(company.id)], env);
    expect(pendingText.stdout).toContain('Manutenção de frio');
  });

  it('several commands at the same time while the server serves requests', async () => {
    const results = await Promise.all([
      runCli(['companies', 'create', '--name', 'Concorrente A', '--json'], env),
      runCli(['companies', 'create', '--name', 'Concorrente B', '--json'], env),
      runCli(['keys', 'list', '--company', String(company.id), '--json'], env),
      runCli(['pos', 'pending', '--company', String(company.id), '--json'], env),
      apiCall(server.apiBaseUrl, key.key, '/customers'),
      apiCall(server.apiBaseUrl, key.key, '/products'),
    ]);
    for (const result of results.slice(0, 4)) {
      expect((result as { code: number }).code, (result as { stderr: string }).stderr).toBe(0);
    }
    for (const result of results.slice(4)) expect((result as { status: number }).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('--json of every command: one object of its shape (as docs/operator-cli.md says), times in TZ_NAME', async () => {
    const ran = new Set<string>();
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
    const json = async (argv: string[], shape: readonly string[]): Promise<any> => {
      const name = COMMANDS.find(
        (command) => argv.join(' ').startsWith(`${command.name} `) || argv.join(' ') === command.name,
      )?.name;
      const result = await runInProcess([...argv, '--json'], env);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
      const answer = JSON.parse(result.stdout);
      expect(Object.keys(answer).sort(), argv.join(' ')).toEqual([...shape].sort());
      expect(
        offsetsOf(answer).filter((time) => !time.endsWith('+02:00')),
        argv.join(' '),
      ).toEqual([]);
      if (name) {
        ran.add(name);
        const documented = documentedShapes(name);
        if (documented.length > 0)
          expect(documented, `docs/operator-cli.md: ${name}`).toContainEqual([...shape].sort());
      }
      return answer;
    };
    const COMPANY = ['id', 'name', 'nuit', 'partner_api_enabled'];
    const ENDPOINT = [
      'id',
      'company_id',
      'url',
      'events',
      'enabled',
      'disabled_reason',
      'disabled_at',
      'previous_secret_valid_until',
      'created_at',
    ];

    await json(['migrate'], ['migrated', 'storage']);
    const company = await json(['companies', 'create', '--name', 'Percorrida, Lda'], COMPANY);
    const id = String(company.id);
    await json(['companies', 'list'], ['companies']);
    await json(['companies', 'disable-api', id], COMPANY);
    await json(['companies', 'enable-api', id], COMPANY);
    const newKey = await json(
      ['keys', 'create', '--company', id],
      ['id', 'key', 'mode', 'scopes', 'expires_at', 'company_id', 'display_prefix'],
    );
    await json(['keys', 'list', '--company', id], ['company_id', 'keys']);
    await json(
      ['taxes', 'create', '--company', id, '--name', 'IVA 16%', '--rate', '16'],
      ['id', 'company_id', 'name', 'rate'],
    );
    await json(['taxes', 'list', '--company', id], ['company_id', 'taxes']);
    await json(
      ['customers', 'create', '--global', '--name', 'Cliente Global'],
      ['id', 'name', 'email', 'nuit', 'phone', 'global'],
    );
    await json(['customers', 'list', '--company', id], ['company_id', 'customers']);
    const demo = await json(
      ['demo'],
      [
        'id',
        'company',
        'live_key',
        'test_key',
        'tax',
        'global_customer_id',
        'invoices',
        'counts',
        'api_base_url',
      ],
    );
    const demoId = String(demo.id);
    const drafts = await json(
      ['invoices', 'list', '--company', demoId, '--status', 'draft'],
      ['company_id', 'invoices'],
    );
    const [first, second] = drafts.invoices.map((invoice: { id: number }) => String(invoice.id));
    await json(['invoices', 'issue', first], ['id', 'invoice_code', 'status']);
    await json(
      ['payments', 'record', '--invoice', first, '--amount', '1.00'],
      ['id', 'payment_code', 'invoice_id', 'amount', 'status'],
    );
    await json(['invoices', 'cancel', second], ['id', 'status']);
    await json(
      ['movements', 'record', '--company', id, '--kind', 'salary', '--amount', '10'],
      ['id', 'kind', 'amount'],
    );
    await json(['pos', 'pending', '--company', demoId], ['company_id', 'products']);

    const endpoint = await json(
      ['webhooks', 'create', '--company', demoId, '--url', receiver.url('/walk')],
      [...ENDPOINT, 'secret'],
    );
    const endpointId = String(endpoint.id);
    const listed = await json(['webhooks', 'list', '--company', demoId], ['company_id', 'endpoints']);
    expect(Object.keys(listed.endpoints[0]).sort()).toEqual(
      [
        ...ENDPOINT,
        'last_success_at',
        'failing_since',
        'last_error',
        'last_error_at',
        'deliveries_pending',
      ].sort(),
    );
    await json(['webhooks', 'update', endpointId, '--events', 'invoice.*,customer.created'], ENDPOINT);
    const TESTED = [
      'endpoint_id',
      'company_id',
      'event_id',
      'type',
      'status',
      'status_code',
      'latency_ms',
      'error',
    ];
    const ping = await json(['webhooks', 'test', endpointId], TESTED);
    expect(ping.status).toBe('succeeded');
    const sample = await json(['webhooks', 'test', endpointId, '--type', 'invoice.paid'], TESTED);
    expect(sample).toMatchObject({ type: 'invoice.paid', status: 'succeeded' });
    await json(['webhooks', 'deliveries', endpointId], ['endpoint_id', 'deliveries']);
    await json(['webhooks', 'resend', ping.event_id], ['event_id', 'type', 'deliveries']);
    await json(
      ['webhooks', 'resend', '--endpoint', endpointId, '--since', '1h'],
      [
        'endpoint_id',
        'company_id',
        'since',
        'until',
        'resent',
        'first_event_id',
        'last_event_id',
        'more',
        'next_since',
      ],
    );
    await json(['webhooks', 'rotate-secret', endpointId], ['id', 'secret', 'previous_secret_valid_until']);
    await json(['webhooks', 'disable', endpointId], ENDPOINT);
    await json(['webhooks', 'enable', endpointId], ENDPOINT);
    const rolledKey = await json(
      ['keys', 'roll', String(newKey.id), '--grace', '1h'],
      ['id', 'key', 'mode', 'scopes', 'expires_at', 'company_id', 'display_prefix', 'previous_key'],
    );
    await json(['keys', 'usage', String(rolledKey.id)], ['key_id', 'company_id', 'days', 'totals']);
    // The request log: a request of the demo's key, once written (within about a second).
    const logged = await apiCall(server.apiBaseUrl, demo.live_key.key, '/ping');
    await json(['requests', 'list', '--company', demoId, '--limit', '5'], ['company_id', 'requests']);
    await vi.waitFor(
      async () => {
        const found = await runInProcess(['requests', 'show', logged.body.data.request_id, '--json'], env);
        expect(found.code, found.stderr).toBe(0);
      },
      { timeout: 15_000, interval: 200 },
    );
    await json(['requests', 'show', logged.body.data.request_id], ['request', 'record', 'events']);
    await json(
      ['usage', '--company', demoId, '--window', '7d'],
      [
        'company_id',
        'api_key_id',
        'window',
        'from',
        'to',
        'step',
        'totals',
        'latency',
        'error_codes',
        'deprecated_uses',
        'series',
      ],
    );
    await json(['deprecations', 'usage'], ['days', 'uses']);
    await json(['keys', 'revoke', String(newKey.id)], ['id', 'revoked_at']);
    const STAFF = ['id', 'email', 'name', 'role', 'company_id', 'state', 'created_at'];
    const person = await json(
      ['staff', 'create', '--email', 'walk@example.co.mz', '--name', 'Walk', '--role', 'viewer'],
      [...STAFF, 'setup_path', 'setup_expires_at'],
    );
    await json(['staff', 'list'], ['staff']);
    await json(
      ['staff', 'reset', String(person.id)],
      [...STAFF, 'setup_path', 'setup_expires_at', 'sessions_ended'],
    );
    await json(['staff', 'disable', String(person.id)], [...STAFF, 'sessions_ended']);
    await json(['audit', '--limit', '3'], ['entries']);
    // The counters the demo's writes kept agree with its rows (the differences: test/operations/list-counters.process.test.ts).
    await json(
      ['lists', 'verify', '--company', demoId],
      ['company_id', 'exact', 'difference_count', 'counters', 'differences'],
    );
    await json(['lists', 'rebuild', '--company', demoId], ['company_id', 'repaired', 'counters']);
    // backup copies the embedded database (PostgreSQL has pg_dump); restore needs it stopped:
    // both are walked in test/cli/backup.process.test.ts.
    const elsewhere = ['restore', ...(storage.kind === 'pglite' ? [] : ['backup'])];
    if (storage.kind === 'pglite') {
      const copy = join(env.DATA_DIR as string, '..', 'walk.tar.gz');
      await json(['backup', copy], ['file', 'bytes', 'database', 'taken_at']);
    }

    expect([...ran, ...elsewhere].sort()).toEqual(COMMANDS.map((command) => command.name).sort());
  });

  it('failures exit non-zero with one line on stderr and nothing on stdout', async () => {
    // Refusals exit 1; flag values of the wrong form exit 2 (wrong usage). Under --json the
    // message is one JSON object on stderr.
    const cases: [string[], RegExp, number][] = [
      [['keys', 'revoke', '999999'], /^error: API key 999999 does not exist\n$/, 1],
      [['companies', 'enable-api', '999999'], /^error: company 999999 does not exist\n$/, 1],
      [['keys', 'create', '--company', '999999'], /^error: company 999999 does not exist\n$/, 1],
      [
        ['keys', 'create', '--company', String(company.id), '--days', '366'],
        /^error: days must be an integer from 1 to 365\n/,
        2,
      ],
      [
        ['keys', 'create', '--company', String(company.id), '--scopes', 'invoices:delete'],
        /^error: unknown scope\(s\): invoices:delete/,
        2,
      ],
      [
        ['keys', 'create', '--company', String(company.id), '--mode', 'sandbox'],
        /^error: mode must be one of live, test\n/,
        2,
      ],
      [['keys', 'list', '--company', 'abc'], /^error: company must be a positive integer id\n/, 2],
      [['invoices', 'issue', '999999'], /^error: invoice 999999 does not exist\n$/, 1],
      [
        ['payments', 'record', '--invoice', '1', '--amount', '12.345'],
        /^error: amount must be a positive number/,
        2,
      ],
      [
        ['payments', 'record', '--invoice', '1', '--amount', '10', '--date', '2026-02-30'],
        /^error: date must be a date YYYY-MM-DD\n/,
        2,
      ],
      [['pos', 'pending', '--company', '999999'], /^error: company 999999 does not exist\n$/, 1],
      // The request log's list checks its company the way every other command does.
      [['requests', 'list', '--company', '999999'], /^error: company 999999 does not exist\n$/, 1],
    ];
    // Two through the real executable, the rest in this process (same main(), faster).
    const results = await Promise.all(
      cases.map(([args], i) => (i < 2 ? runCli : runInProcess)([...args], env)),
    );
    results.forEach((result, i) => {
      const [args, pattern, status] = cases[i] as [string[], RegExp, number];
      expect(result.code, args.join(' ')).toBe(status);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(pattern);
      if (status === 2) expect(result.stderr).toContain(`usage: bin/invoicing ${args[0]} ${args[1]}`);
    });
    const json = await Promise.all(
      cases.map(([args], i) => (i < 2 ? runCli : runInProcess)([...args, '--json'], env)),
    );
    json.forEach((result, i) => {
      const [args, pattern, status] = cases[i] as [string[], RegExp, number];
      expect(result.code, args.join(' ')).toBe(status);
      expect(result.stdout, args.join(' ')).toBe('');
      const failure = JSON.parse(result.stderr) as {
        error: { kind: string; message: string; exit_status: number };
      };
      expect(failure.error.kind).toBe(status === 2 ? 'usage' : 'refused');
      expect(failure.error.exit_status).toBe(status);
      expect(`error: ${failure.error.message}\n`).toMatch(pattern);
    });
  });

  it.runIf(testStorage() === 'pglite')('a second serve on the same DATA_DIR is refused', async () => {
    const second = await runCli(['serve'], env);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already in use by the server \(pid \d+\)/);
    expect((await apiCall(server.apiBaseUrl, key.key, '/ping')).status).toBe(200);
  });

  it('SIGTERM stops the server cleanly and frees DATA_DIR for the next command', async () => {
    expect(await server.stop()).toBe(0);
    if (storage.kind === 'pglite') {
      const dataDir = env.DATA_DIR as string;
      expect(existsSync(join(dataDir, 'invoicing.lock'))).toBe(false);
      expect(existsSync(join(dataDir, 'admin.sock'))).toBe(false);
    }
    // With no server, the command opens the database itself.
    const list = await cliJson<{ companies: Company[] }>(['companies', 'list'], env);
    expect(list.companies.map((c) => c.id)).toContain(company.id);
  });
});
