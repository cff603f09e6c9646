// Help, usage errors and unexpected failures: no database needed for most of these.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runInProcess } from '../helpers/cli.js';

// These tests assert the English texts: they ask for English (Portuguese is the default; the
// switch itself is test/cli/language.unit.test.ts).
const EN = { INVOICING_LANG: 'en' };
const inProcess = (argv: string[]) => runInProcess(argv, EN);

const DECISIONS_COMMANDS = [
  'migrate',
  'companies create',
  'companies list',
  'companies enable-api',
  'companies disable-api',
  'keys create',
  'keys list',
  'keys revoke',
  'taxes create',
  'customers create',
  'invoices issue',
  'invoices cancel',
  'payments record',
  'movements record',
  'pos pending',
  'demo',
  // issue 12: webhook endpoints (docs/webhooks.md)
  'webhooks create',
  'webhooks list',
  'webhooks disable',
  'webhooks enable',
  'webhooks rotate-secret',
  'webhooks test',
  'webhooks deliveries',
  'webhooks resend',
];
/** Added for operators: look-ups without the API, and the audit trail (issue 13); backups (issue 20). */
const OPERATOR_COMMANDS = [
  // issue 30: the counters behind the lists' totals, checked and rebuilt
  'lists verify',
  'lists rebuild',
  // issue 30: the taxes a partner may name (decisions.md, "Products")
  'taxes list',
  'customers list',
  'invoices list',
  'audit',
  'backup',
  'restore',
  // issue 22: endpoints change their events
  'webhooks update',
  // issue 22: the request log, and keys rolled with a grace
  'requests list',
  'requests show',
  'keys usage',
  'keys roll',
  // issue 33: who still uses a deprecated route, parameter or field
  'deprecations usage',
  // issue 40: usage from the request log's hourly rollups (the console's /usage page)
  'usage',
  // issue 40: the support console's people
  'staff create',
  'staff list',
  'staff disable',
  'staff reset',
];

describe('bin/invoicing: help and usage', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'invoicing-usage-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('has exactly the commands of decisions.md (plus companies list, serve and the operator look-ups)', () => {
    expect(COMMANDS.map((command) => command.name).sort()).toEqual(
      [...DECISIONS_COMMANDS, ...OPERATOR_COMMANDS].sort(),
    );
  });

  it('--help through the real executable lists every command', async () => {
    const result = await runCli(['--help'], EN);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const name of ['serve', ...DECISIONS_COMMANDS, ...OPERATOR_COMMANDS]) {
      expect(result.stdout).toContain(`  ${name}`);
    }
    expect(result.stdout).toContain('--json');
  });

  it('every command has its own --help', async () => {
    for (const name of ['serve', ...DECISIONS_COMMANDS, ...OPERATOR_COMMANDS]) {
      const result = await inProcess([...name.split(' '), '--help']);
      expect(result.code, name).toBe(0);
      expect(result.stdout, name).toMatch(new RegExp(`^Usage: bin/invoicing ${name}`));
      expect(result.stderr, name).toBe('');
    }
    const viaHelp = await inProcess(['help', 'keys', 'create']);
    expect(viaHelp.stdout).toContain('--scopes S');
    const group = await inProcess(['keys', '--help']);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('keys create --company ID');
    expect(group.stdout).toContain('keys revoke KEY_ID');
  });

  it('a command help through the real executable answers fast, without touching a database', async () => {
    const started = Date.now();
    const result = await runCli(['keys', 'create', '--help'], {
      ...EN,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: bin/invoicing keys create --company ID [--mode live|test]');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('wrong usage exits 2 with the message and the usage line on stderr', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /^error: unknown command "frobnicate"/],
      [['keys', 'rotate'], /^error: unknown command "keys rotate"/],
      [['keys', 'create'], /^error: missing --company\nusage: bin\/invoicing keys create --company ID/],
      [['keys', 'create', '--company', '1', '--colour', 'red'], /^error: unknown option --colour\n/],
      // issue 30: the nearest known option, or the variable a flag-like name stands for.
      [
        ['keys', 'create', '--compnay', '1'],
        /^error: unknown option --compnay \(did you mean --company\?\)\n/,
      ],
      [
        ['keys', 'list', '--company', '1', '--jsn'],
        /^error: unknown option --jsn \(did you mean --json\?\)\n/,
      ],
      [
        ['serve', '--port', '8080'],
        /^error: unknown option --port: set the PORT variable instead, e\.g\. PORT=\.\.\. bin\/invoicing serve\n/,
      ],
      [['keys', 'revoke'], /^error: missing KEY_ID\n/],
      [['keys', 'revoke', '1', '2'], /^error: expected one KEY_ID, got: 1 2\n/],
      [['companies', 'create', '--name'], /^error: Option '--name <value>' argument missing/],
      [['companies', 'list', 'extra'], /^error: unexpected argument: extra\n/],
      [['payments', 'record', '--invoice', '1'], /^error: missing --amount\n/],
      [['movements', 'record', '--company', '1'], /^error: missing --kind, --amount\n/],
    ];
    for (const [argv, pattern] of cases) {
      const result = await inProcess(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stdout, argv.join(' ')).toBe('');
      expect(result.stderr, argv.join(' ')).toMatch(pattern);
    }
    const real = await runCli(['keys', 'create'], EN);
    expect(real.code).toBe(2);
    expect(real.stdout).toBe('');
    expect(real.stderr).toContain('error: missing --company');
    expect(real.stderr).toContain('see: bin/invoicing keys create --help');
  });

  it('under --json, wrong usage is one JSON object on stderr', async () => {
    const real = await runCli(['keys', 'create', '--json'], EN);
    expect(real.code).toBe(2);
    expect(real.stdout).toBe('');
    expect(JSON.parse(real.stderr)).toEqual({
      error: {
        kind: 'usage',
        message: 'missing --company',
        usage: expect.stringMatching(/^bin\/invoicing keys create --company ID/),
        help: 'bin/invoicing keys create --help',
        exit_status: 2,
      },
    });
  });

  it('a bad environment is refused with its own message', async () => {
    const result = await runCli(['companies', 'list'], { ...EN, PORT: 'abc', DATA_DIR: join(dir, 'data') });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: PORT must be an integer from 0 to 65535, got "abc"\n');
  });

  it('an unreachable database gets a short message, never internals', async () => {
    const result = await runCli(['companies', 'list', '--json'], {
      ...EN,
      DATABASE_URL: 'postgres://operator:s3cret@127.0.0.1:1/invoicing',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        kind: 'environment',
        message: 'cannot reach the database: connection refused',
        exit_status: 1,
      },
    });
    expect(result.stderr).not.toContain('s3cret');
    const text = await runCli(['companies', 'list'], {
      ...EN,
      DATABASE_URL: 'postgres://operator:s3cret@127.0.0.1:1/x',
    });
    expect(text.stderr).toMatch(/^error: cannot reach the database: connection refused/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unexpected failure is a generic message; --debug adds the stack', async () => {
    // DATA_DIR is a file: opening the embedded database fails in an unforeseen way.
    const file = join(dir, 'not-a-directory');
    await writeFile(file, 'x');
    const plain = await runCli(['companies', 'list'], { ...EN, DATA_DIR: file });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toBe('error: unexpected failure (run again with --debug for details)\n');

    const debug = await runCli(['companies', 'list', '--debug'], { ...EN, DATA_DIR: file });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^error: unexpected failure\n/);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});
