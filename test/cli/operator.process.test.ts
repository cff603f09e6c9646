// What issue 13 added to the operator's command line, through the real bin/invoicing next to a
// running server (PGlite: through its admin socket; PostgreSQL: directly): --version, look-ups
// without the API, keys with days left and last use, times in TZ_NAME, --actor in the audit trail,
// bad flag values as usage errors (exit 2), and failures as JSON under --json.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

interface Demo {
  company: { id: number };
  live_key: { id: number; key: string };
  test_key: { id: number; key: string };
}

describe(`operator command line additions (${testStorage()})`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let storage: CliStorage;
  let server: ServeProcess;
  let env: Record<string, string>;
  let demo: Demo;
  let company: string;

  beforeAll(async () => {
    storage = await createCliStorage();
    // Times in TZ_NAME, the service's zone (Tokyo here, +09:00, to tell it from the default).
    // (English asked for: this file asserts the command line's English texts)
    env = { ...storage.env, TZ_NAME: 'Asia/Tokyo', INVOICING_LANG: 'en' };
    server = await startServe(env, { args: ['--demo'] });
    demo = server.ready?.demo as Demo;
    company = String(demo.company.id);
  });
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
  });

  it('--version', async () => {
    const text = await runCli(['--version'], {});
    expect(text).toEqual({ code: 0, stdout: `invoicing ${VERSION}\n`, stderr: '' });
    const json = await runCli(['--version', '--json'], {});
    expect(JSON.parse(json.stdout)).toEqual({ version: VERSION });
  });

  it('invoices list --company ID [--status S]: what there is to issue, without the API', async () => {
    const drafts = await cliJson<{ company_id: number; invoices: Record<string, unknown>[] }>(
      ['invoices', 'list', '--company', company, '--status', 'draft'],
      env,
    );
    expect(drafts.company_id).toBe(demo.company.id);
    expect(drafts.invoices.length).toBe(2);
    for (const invoice of drafts.invoices) {
      expect(invoice).toEqual({
        id: expect.any(Number),
        invoice_code: expect.any(String),
        status: 'draft',
        invoice_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        customer_id: expect.any(Number),
        customer: expect.any(String),
        grand_total: expect.stringMatching(/^\d+\.\d{2}$/),
        remaining_amount: expect.stringMatching(/^\d+\.\d{2}$/),
      });
    }
    const all = await commandJson<{ invoices: { id: number; status: string }[] }>(
      ['invoices', 'list', '--company', company],
      env,
    );
    expect(all.invoices.length).toBe(7);
    expect(new Set(all.invoices.map((i) => i.status))).toEqual(
      new Set(['draft', 'unpaid', 'partially_paid', 'paid', 'cancelled']),
    );
    const ids = all.invoices.map((i) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a)); // newest first

    const text = await runInProcess(['invoices', 'list', '--company', company, '--status', 'draft'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/ID +CODE +STATUS +DATE +CUSTOMER +TOTAL +TO PAY/);
    const first = drafts.invoices[0];
    expect(text.stdout).toContain(String(first?.customer));

    const issued = await commandJson<{ status: string }>(['invoices', 'issue', String(first?.id)], env);
    expect(issued.status).toBe('unpaid');
    const left = await commandJson<{ invoices: unknown[] }>(
      ['invoices', 'list', '--company', company, '--status', 'draft'],
      env,
    );
    expect(left.invoices).toHaveLength(1);
  });

  it("customers list --company ID: the company's own and the global ones", async () => {
    const listed = await commandJson<{ customers: { name: string; global: boolean; nuit: string | null }[] }>(
      ['customers', 'list', '--company', company],
      env,
    );
    expect(listed.customers.length).toBe(7);
    expect(listed.customers.filter((c) => c.global).map((c) => c.name)).toEqual(['Consumidor Final']);
    const limited = await commandJson<{ customers: unknown[] }>(
      ['customers', 'list', '--company', company, '--limit', '2'],
      env,
    );
    expect(limited.customers).toHaveLength(2);
    const text = await runCli(['customers', 'list', '--company', company], env);
    expect(text.stdout).toMatch(/ID +NAME +TYPE +NUIT +EMAIL +PHONE +GLOBAL/);
  });

  it('keys list: days left and last use, times in TZ_NAME', async () => {
    const created = await commandJson<{ id: number; key: string; expires_at: string }>(
      ['keys', 'create', '--company', company, '--days', '30'],
      env,
    );
    expect(created.expires_at).toMatch(/\+09:00$/);
    expect((await apiCall(server.apiBaseUrl, created.key, '/ping')).status).toBe(200);

    const listed = await commandJson<{ keys: Record<string, unknown>[] }>(
      ['keys', 'list', '--company', company],
      env,
    );
    const mine = listed.keys.find((k) => k.id === created.id);
    expect(mine).toMatchObject({ status: 'active', days_left: 30, revoked_at: null });
    expect(mine?.last_used_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/);
    expect(Date.parse(String(mine?.last_used_at))).toBeGreaterThan(Date.now() - 5 * 60_000);
    const unused = listed.keys.find((k) => k.id === demo.test_key.id);
    expect(unused).toMatchObject({ last_used_at: null, days_left: 365 });

    const revoked = await commandJson<{ revoked_at: string }>(['keys', 'revoke', String(created.id)], env);
    expect(revoked.revoked_at).toMatch(/\+09:00$/);
    const after = await commandJson<{ keys: Record<string, unknown>[] }>(
      ['keys', 'list', '--company', company],
      env,
    );
    expect(after.keys.find((k) => k.id === created.id)).toMatchObject({ status: 'revoked', days_left: null });

    const text = await runInProcess(['keys', 'list', '--company', company], env);
    expect(text.stdout).toMatch(/DAYS LEFT +EXPIRES +LAST USED/);
    expect(text.stdout).toMatch(/ 365 +\d{4}-\d{2}-\d{2}T[\d:.]+\+09:00 +- /);
  });

  it('audit: what changed, by whom (--actor or the OS user), in TZ_NAME', async () => {
    await commandJson(['companies', 'disable-api', company, '--actor', 'joana.suporte'], env);
    await commandJson(['companies', 'enable-api', company], env);
    const trail = await commandJson<{ entries: Record<string, unknown>[] }>(
      ['audit', '--company', company, '--since', new Date().toISOString().slice(0, 10)],
      env,
    );
    const last = trail.entries.slice(-2);
    expect(last).toMatchObject([
      {
        command: 'companies disable-api',
        actor: 'joana.suporte',
        company_id: demo.company.id,
        outcome: 'ok',
      },
      { command: 'companies enable-api', company_id: demo.company.id, outcome: 'ok' },
    ]);
    const { userInfo } = await import('node:os');
    expect(last[1]?.actor).toBe(userInfo().username);
    expect(String(last[0]?.at)).toMatch(/\+09:00$/);
    // Every earlier change of the company is there too, the demo first.
    expect(trail.entries.map((e) => e.command)).toEqual(
      expect.arrayContaining(['demo', 'invoices issue', 'keys create', 'keys revoke']),
    );
    const text = await runCli(['audit', '--company', company, '--limit', '2'], env);
    expect(text.stdout).toMatch(/AT +ACTOR +COMMAND +COMPANY +OBJECT +OUTCOME +NOTE/);
    expect(text.stdout).toMatch(/joana\.suporte +companies disable-api +\d+ +company \d+ +ok/);
  });

  it('a bad flag value is wrong usage (exit 2); a refusal exits 1; both as JSON under --json', async () => {
    const usage: string[][] = [
      ['invoices', 'list', '--company', company, '--status', 'open'],
      ['invoices', 'list', '--company', company, '--limit', '0'],
      ['customers', 'list', '--company', 'x'],
      ['audit', '--since', 'yesterday'],
      ['payments', 'record', '--invoice', '1', '--amount', 'ten'],
      ['payments', 'record', '--invoice', '1', '--amount', '10', '--method', 'bitcoin'],
      ['taxes', 'create', '--global', '--name', 'X', '--rate', 'abc'],
    ];
    // The first through the real executable, the rest with the same main() in this process.
    for (const [i, args] of usage.entries()) {
      const run = i === 0 ? runCli : runInProcess;
      const result = await run(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^error: .*\nusage: bin\/invoicing /);
      const json = await run([...args, '--json'], env);
      expect(json.code).toBe(2);
      expect(json.stdout).toBe('');
      expect(JSON.parse(json.stderr).error).toMatchObject({ kind: 'usage', exit_status: 2 });
    }
    const refused = await runInProcess(['invoices', 'list', '--company', '999999', '--json'], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toEqual({
      error: { kind: 'refused', message: 'company 999999 does not exist', exit_status: 1 },
    });
  });

  it('a plain-http webhook URL refused by WEBHOOK_ALLOW_HTTP says whose setting decides', async () => {
    const create = ['webhooks', 'create', '--company', company, '--url', 'http://127.0.0.1:9/hook', '--json'];
    if (storage.kind === 'pglite') {
      // The server runs the command (admin socket) with its own setting, read when it started.
      const result = await runInProcess(create, { ...env, WEBHOOK_ALLOW_HTTP: 'true' });
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stderr).error.message).toMatch(
        /WEBHOOK_ALLOW_HTTP.*the setting of the running server, read when it started: giving it to bin\/invoicing changes nothing/,
      );
    } else {
      // The command runs it itself, with its own setting; the server delivers with its own.
      const result = await runInProcess(create, env);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stderr).error.message).toMatch(
        /WEBHOOK_ALLOW_HTTP.*the server delivers with its own setting: set it for the server too/,
      );
    }
  });
});
