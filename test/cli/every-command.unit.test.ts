// Every operator command, walked: its --help, and a bad value of each argument it reads exits 2
// (wrong usage) before anything is opened: the database here cannot be reached, so a bad argument
// that got as far as the database would answer 1 instead. The --json shape of each command, which
// needs a database, is test/cli/every-command.test.ts. Runs main() in this process.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { runInProcess } from '../helpers/cli.js';

const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };

/** For each command: argument lists that are wrong usage (the command's words come first). */
const BAD_ARGUMENTS: Record<string, string[][]> = {
  migrate: [['extra']],
  'companies create': [['--name', '   ']],
  'companies list': [['--bogus']],
  'companies enable-api': [['abc'], ['0'], ['2147483648']],
  'companies disable-api': [['1.5']],
  'keys create': [
    ['--company', 'abc'],
    ['--company', '1', '--mode', 'admin'],
    ['--company', '1', '--scopes', 'root'],
    ['--company', '1', '--days', '400'],
  ],
  'keys list': [['--company', 'x']],
  'keys revoke': [['abc']],
  'keys roll': [['abc'], ['1', '--grace', 'forever'], ['1', '--grace', '31d'], ['1', '--grace', '-1h']],
  'keys usage': [['abc'], ['0']],
  usage: [['--company', 'x'], ['--company', '1', '--window', '2d'], ['--company', '1', '--key', 'abc'], []],
  'taxes create': [
    ['--global', '--name', 'IVA', '--rate', '101'],
    ['--company', '1', '--global', '--name', 'IVA', '--rate', '5'],
    ['--name', 'IVA', '--rate', '5'],
    ['--company', '1', '--name', 'IVA', '--rate', 'dezasseis'],
  ],
  'taxes list': [
    ['--company', 'x'],
    ['--company', '0'],
  ],
  'customers create': [
    ['--name', 'Sem global'],
    ['--global', '--name', 'X', '--email', 'not-an-address'],
  ],
  'customers list': [
    ['--company', '1', '--limit', '0'],
    ['--company', 'um'],
  ],
  'invoices list': [
    ['--company', '1', '--status', 'open'],
    ['--company', '1', '--limit', '5000'],
  ],
  'invoices issue': [['abc']],
  'invoices cancel': [['0']],
  'payments record': [
    ['--invoice', 'x', '--amount', '5'],
    ['--invoice', '1', '--amount', 'ten'],
    ['--invoice', '1', '--amount', '1.001'],
    ['--invoice', '1', '--amount', '5', '--date', '2026-02-30'],
    ['--invoice', '1', '--amount', '5', '--method', 'bitcoin'],
  ],
  'movements record': [
    ['--company', '1', '--kind', 'bonus', '--amount', '5'],
    ['--company', '1', '--kind', 'salary', '--amount', '0'],
    ['--company', 'x', '--kind', 'salary', '--amount', '5'],
  ],
  'pos pending': [['--company', 'abc']],
  audit: [
    ['--since', 'yesterday'],
    ['--limit', '0'],
    ['--company', 'x'],
  ],
  demo: [['extra']],
  'lists verify': [['--company', 'x'], ['extra']],
  'lists rebuild': [['--company', '0']],
  'webhooks create': [
    ['--company', 'x', '--url', 'https://erp.example.co.mz/hooks'],
    ['--company', '1', '--url', 'not a url'],
    ['--company', '1', '--url', 'https://erp.example.co.mz/hooks', '--events', 'invoice.exploded'],
    ['--company', '1', '--url', 'https://erp.example.co.mz/hooks', '--events', 'invoices.*'],
  ],
  'webhooks update': [
    ['abc', '--events', 'all'],
    ['1'],
    ['1', '--events', 'invoice.exploded'],
    ['1', '--events', 'receipt.*'],
    ['1', '--url', 'not a url'],
  ],
  'webhooks list': [['--company', 'x']],
  'webhooks disable': [['abc']],
  'webhooks enable': [['0']],
  'webhooks rotate-secret': [['abc']],
  'webhooks test': [['1e3'], ['1', '--type', 'invoice.*'], ['1', '--type', 'invoice.exploded']],
  'webhooks deliveries': [['abc'], ['1', '--limit', '0'], ['1', '--limit', 'many']],
  'webhooks resend': [
    ['nope'],
    [],
    ['--endpoint', '1'],
    ['--endpoint', 'x', '--since', '1h'],
    ['--endpoint', '1', '--since', 'yesterday'],
    ['--endpoint', '1', '--since', '2026-11-20', '--until', 'soon'],
    ['--endpoint', '1', '--since', '2026-11-22', '--until', '2026-11-21'],
    ['--endpoint', '1', '--since', '2h', '--until', '3h'],
    ['evt_0123456789abcdef01234567', '--endpoint', '1', '--since', '1h'],
  ],
  backup: [['one.tar.gz', 'two.tar.gz'], []],
  restore: [['copy.tar.gz', '--force=yes'], []],
  'requests list': [
    ['--company', 'x'],
    ['--company', '1', '--key', 'k'],
    ['--company', '1', '--status', '4x'],
    ['--company', '1', '--status', '600'],
    ['--company', '1', '--since', 'yesterday'],
    ['--company', '1', '--route', 'GET /customers'],
    ['--company', '1', '--limit', '0'],
    ['--company', '1', '--until', 'tomorrow'],
    ['--company', '1', '--error', 'Not A Code'],
  ],
  'requests show': [['nope'], ['req_123'], []],
  'deprecations usage': [['extra'], ['--bogus']],
  'staff create': [
    ['--email', 'not-an-address', '--name', 'Ana', '--role', 'admin'],
    ['--email', 'ana@example.co.mz', '--name', 'Ana', '--role', 'owner'],
    ['--email', 'ana@example.co.mz', '--name', 'Ana', '--role', 'partner'],
    ['--email', 'ana@example.co.mz', '--name', 'Ana', '--role', 'support', '--company', '1'],
    ['--email', 'ana@example.co.mz', '--name', 'Ana', '--role', 'partner', '--company', 'x'],
    ['--email', 'ana@example.co.mz', '--name', 'Ana'],
  ],
  'staff list': [['extra']],
  'staff disable': [['x'], []],
  'staff reset': [['0'], []],
};

describe('every operator command', () => {
  it('has bad-argument cases here (a new command must add its own)', () => {
    expect(Object.keys(BAD_ARGUMENTS).sort()).toEqual(COMMANDS.map((command) => command.name).sort());
  });

  it('--help: its usage line and every option it takes', async () => {
    for (const command of COMMANDS) {
      // (English asked for: the usage line is asserted in English)
      const result = await runInProcess([...command.name.split(' '), '--help', '--lang', 'en'], NO_DATABASE);
      expect(result.code, command.name).toBe(0);
      expect(result.stderr, command.name).toBe('');
      expect(result.stdout, command.name).toMatch(new RegExp(`^Usage: bin/invoicing ${command.name}`));
      for (const option of Object.keys(command.options)) {
        expect(result.stdout, `${command.name} --${option}`).toContain(`--${option}`);
      }
    }
  });

  it('a bad argument is wrong usage: exit 2 under --json, kind "usage", before any database is opened', async () => {
    for (const [name, cases] of Object.entries(BAD_ARGUMENTS)) {
      for (const args of cases) {
        const argv = [...name.split(' '), ...args];
        const result = await runInProcess([...argv, '--json'], NO_DATABASE);
        const label = argv.join(' ');
        expect({ label, code: result.code, stdout: result.stdout }).toEqual({ label, code: 2, stdout: '' });
        expect(JSON.parse(result.stderr), label).toMatchObject({ error: { kind: 'usage', exit_status: 2 } });
      }
    }
  });
});
