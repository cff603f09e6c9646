// The commands of decisions.md "Operator command line": how each one reads its flags, which
// operation of the shared table (src/operations/index.ts) it runs, and how its result reads as
// text, typed by that operation's result (src/cli/command.ts). Nothing here touches the database,
// so `--help` and usage errors stay fast.
import { SCOPES } from '../keys/scopes.js';
import type { OperationResult } from '../operations/index.js';
import { BACKUP_COMMANDS } from './backup.js';
import { bool, type Command, command, type OptionSpecs, str, type TextContext } from './command.js';
import { details, table } from './output.js';
import { KEY_COMMANDS, REQUEST_COMMANDS } from './requests.js';
import { STAFF_COMMANDS } from './staff.js';
import { curlLine } from './urls.js';
import { WEBHOOK_COMMANDS } from './webhooks.js';

const SCOPE_LIST = SCOPES.join(', ');

function keyText(key: OperationResult<'keys.create'>, context: TextContext): string {
  return [
    `Created ${key.mode} API key ${key.id} for company ${key.company_id}.`,
    `  key:        ${key.key}`,
    `  scopes:     ${key.scopes.join(', ')}`,
    `  expires at: ${key.expires_at}`,
    '',
    'The key is shown only this once and cannot be recovered: store it now.',
    `Try it: ${curlLine(key.key, context.apiBaseUrl)}`,
  ].join('\n');
}

function demoText(demo: OperationResult<'demo'>, context: TextContext): string {
  // (null only for serve's "into an empty database", never from this command)
  if (!demo) return 'The database has a company already: no demo company created.';
  const { company, live_key: live, test_key: test, counts } = demo;
  return [
    `Demo company ${company.id} created: ${company.name} (NUIT ${company.nuit}), partner API enabled.`,
    `  ${Object.entries(counts)
      .map(([name, count]) => `${count} ${name}`)
      .join(', ')}`,
    '',
    table(demo.invoices, [
      ['INVOICE', 'id'],
      ['STATUS', 'status'],
      ['CUSTOMER', 'customer'],
    ]),
    '',
    `  live key (all scopes): ${live.key}`,
    `  test key (read only):  ${test.key}`,
    '',
    'These keys are shown only this once: store them.',
    `Try it: ${curlLine(live.key, context.apiBaseUrl)}`,
  ].join('\n');
}

function companyApiText(enabled: boolean) {
  return (company: OperationResult<'companies.enable-api'>) =>
    `Partner API ${enabled ? 'enabled' : 'disabled'} for company ${company.id} (${company.name}); effective from the server's next request.`;
}

/** A headline naming the result's id, then every field of the result. */
function resultText(headline: (id: number) => string) {
  return (result: { id: number }) => `${headline(result.id)}\n${details(result)}`;
}

export const COMMANDS: readonly Command[] = [
  command({
    name: 'migrate',
    summary: 'apply pending database migrations (serve does it too)',
    usage: '',
    help: 'Applies the SQL migrations in drizzle/ to DATABASE_URL, or to the embedded database in DATA_DIR.',
    options: {},
    operation: 'migrate',
    args: () => ({}),
    text: (result) => `Migrations applied: ${result.storage} is up to date.`,
  }),
  command({
    name: 'companies create',
    summary: 'create a company (partner API disabled until enabled)',
    usage: '--name N [--nuit T]',
    help: '  --name N   company name\n  --nuit T   tax number (NUIT)',
    options: { name: str, nuit: str },
    required: ['name'],
    operation: 'companies.create',
    args: (v) => ({ name: v.name, nuit: v.nuit }),
    text: (company) =>
      [
        `Company ${company.id} created: ${company.name}${company.nuit ? ` (NUIT ${company.nuit})` : ''}.`,
        `The partner API is disabled; enable it with: bin/invoicing companies enable-api ${company.id}`,
      ].join('\n'),
  }),
  command({
    name: 'companies list',
    summary: 'list the companies',
    usage: '',
    help: '',
    options: {},
    operation: 'companies.list',
    args: () => ({}),
    text: (result) =>
      table(result.companies, [
        ['ID', 'id'],
        ['NAME', 'name'],
        ['NUIT', 'nuit'],
        ['PARTNER API', 'partner_api_enabled'],
      ]),
  }),
  command({
    name: 'companies enable-api',
    summary: "turn a company's partner API on",
    usage: 'ID',
    help: 'Effective from the server’s next request.',
    options: {},
    positional: 'ID',
    operation: 'companies.enable-api',
    args: (_v, id) => ({ id }),
    text: companyApiText(true),
  }),
  command({
    name: 'companies disable-api',
    summary: "turn a company's partner API off (its keys get 403 partner_api_disabled)",
    usage: 'ID',
    help: 'Effective from the server’s next request.',
    options: {},
    positional: 'ID',
    operation: 'companies.disable-api',
    args: (_v, id) => ({ id }),
    text: companyApiText(false),
  }),
  command({
    name: 'keys create',
    summary: 'create an API key for a company; the key is shown once',
    usage: '--company ID [--mode live|test] [--scopes a,b|all] [--days 1..365]',
    help: [
      '  --company ID   the company the key belongs to',
      '  --mode M       live (default) or test (test keys only read)',
      `  --scopes S     comma-separated, or all (default): ${SCOPE_LIST}`,
      '  --days D       validity in days, 1 to 365 (default 365)',
    ].join('\n'),
    options: { company: str, mode: str, scopes: str, days: str },
    required: ['company'],
    operation: 'keys.create',
    args: (v) => ({ company: v.company, mode: v.mode, scopes: v.scopes, days: v.days }),
    text: keyText,
  }),
  command({
    name: 'keys list',
    summary: "list a company's API keys (never their secrets)",
    usage: '--company ID',
    help: '',
    options: { company: str },
    required: ['company'],
    operation: 'keys.list',
    args: (v) => ({ company: v.company }),
    text: (result) =>
      table(result.keys, [
        ['ID', 'id'],
        ['PREFIX', 'display_prefix'],
        ['MODE', 'mode'],
        ['STATUS', 'status'],
        ['DAYS LEFT', 'days_left'],
        ['EXPIRES', 'expires_at'],
        ['LAST USED', 'last_used_at'],
        ['SCOPES', 'scopes'],
      ]),
  }),
  command({
    name: 'keys revoke',
    summary: 'revoke an API key (401 api_key_revoked from the next request)',
    usage: 'KEY_ID',
    help: 'KEY_ID is the numeric id shown by keys create / keys list.',
    options: {},
    positional: 'KEY_ID',
    operation: 'keys.revoke',
    args: (_v, id) => ({ id }),
    text: (result) => `API key ${result.id} revoked at ${result.revoked_at}.`,
  }),
  // ---- keys roll, keys usage (src/cli/requests.ts) ----
  ...KEY_COMMANDS,
  command({
    name: 'taxes create',
    summary: 'create a tax of a company, or a global one',
    usage: '(--company ID | --global) --name N --rate PERCENT',
    help: '  --company ID | --global   owner of the tax\n  --name N                  e.g. "IVA 16%"\n  --rate PERCENT            e.g. 16',
    options: { company: str, global: bool, name: str, rate: str },
    required: ['name', 'rate'],
    operation: 'taxes.create',
    args: (v) => ({ company: v.company, global: v.global, name: v.name, rate: v.rate }),
    text: (tax) => {
      const owner = tax.company_id === null ? 'global' : `of company ${tax.company_id}`;
      return `Tax ${tax.id} created: ${tax.name}, rate ${tax.rate}% (${owner}).`;
    },
  }),
  command({
    name: 'taxes list',
    summary: "the taxes a company may use: its own and the global ones (a product's tax_id)",
    usage: '--company ID',
    help: 'What a partner gives as tax_id; a refused tax_id answers the same list in its 422 hint.',
    options: { company: str },
    required: ['company'],
    operation: 'taxes.list',
    args: (v) => ({ company: v.company }),
    text: (result) =>
      result.taxes.length === 0
        ? `Company ${result.company_id} has no taxes to use: create one with bin/invoicing taxes create.`
        : table(
            result.taxes.map((tax) => ({
              id: tax.id,
              name: tax.name,
              rate: `${tax.rate}%`,
              owner: tax.company_id === null ? 'global' : `company ${tax.company_id}`,
            })),
          ),
  }),
  command({
    name: 'customers create',
    summary: 'create a global customer, visible to every company',
    usage: '--global --name N [--email E] [--nuit T] [--phone P]',
    help: 'Company customers are created through the API; here only global ones (e.g. "Consumidor Final").',
    options: { global: bool, name: str, email: str, nuit: str, phone: str },
    required: ['name'],
    operation: 'customers.create',
    args: (v) => ({ global: v.global, name: v.name, email: v.email, nuit: v.nuit, phone: v.phone }),
    text: (result) => `Global customer ${result.id} created: ${result.name}.`,
  }),
  command({
    name: 'customers list',
    summary: 'list the customers a company may invoice: its own and the global ones',
    usage: '--company ID [--limit N]',
    help: '  --company ID   the company\n  --limit N      at most N customers, by id (default 100, at most 1000)',
    options: { company: str, limit: str },
    required: ['company'],
    operation: 'customers.list',
    args: (v) => ({ company: v.company, limit: v.limit }),
    text: (result) =>
      table(result.customers, [
        ['ID', 'id'],
        ['NAME', 'name'],
        ['TYPE', 'type'],
        ['NUIT', 'nuit'],
        ['EMAIL', 'email'],
        ['PHONE', 'phone'],
        ['GLOBAL', 'global'],
      ]),
  }),
  command({
    name: 'invoices list',
    summary: "list a company's invoices, newest first (e.g. the drafts to issue)",
    usage: '--company ID [--status S] [--limit N]',
    help: [
      '  --company ID   the company',
      '  --status S     only draft, unpaid, partially_paid, paid or cancelled',
      '  --limit N      at most N invoices (default 50, at most 1000)',
    ].join('\n'),
    options: { company: str, status: str, limit: str },
    required: ['company'],
    operation: 'invoices.list',
    args: (v) => ({ company: v.company, status: v.status, limit: v.limit }),
    text: (result) =>
      table(result.invoices, [
        ['ID', 'id'],
        ['CODE', 'invoice_code'],
        ['STATUS', 'status'],
        ['DATE', 'invoice_date'],
        ['CUSTOMER', 'customer'],
        ['TOTAL', 'grand_total'],
        ['TO PAY', 'remaining_amount'],
      ]),
  }),
  command({
    name: 'invoices issue',
    summary: 'issue a draft: fiscal code, status unpaid, stock moved',
    usage: 'ID',
    help: '',
    options: {},
    positional: 'ID',
    operation: 'invoices.issue',
    args: (_v, id) => ({ id }),
    text: resultText((id) => `Invoice ${id} issued.`),
  }),
  command({
    name: 'invoices cancel',
    summary: 'cancel an invoice',
    usage: 'ID',
    help: '',
    options: {},
    positional: 'ID',
    operation: 'invoices.cancel',
    args: (_v, id) => ({ id }),
    text: resultText((id) => `Invoice ${id} cancelled.`),
  }),
  command({
    name: 'payments record',
    summary: 'record a receipt against an issued invoice',
    usage: '--invoice ID --amount A [--date YYYY-MM-DD] [--method M]',
    help: [
      '  --invoice ID  an issued invoice (unpaid or partially paid)',
      '  --amount A    decimal, at most what remains to pay, e.g. 1250.00',
      '  --date D      payment date YYYY-MM-DD (default: today)',
      '  --method M    cash (default), bank_transfer, card, cheque, mpesa, emola, mkesh, mobile_money',
    ].join('\n'),
    options: { invoice: str, amount: str, date: str, method: str },
    required: ['invoice', 'amount'],
    operation: 'payments.record',
    args: (v) => ({ invoice: v.invoice, amount: v.amount, date: v.date, method: v.method }),
    text: resultText((id) => `Receipt ${id} recorded.`),
  }),
  command({
    name: 'movements record',
    summary: 'record a treasury movement that is not a receipt (never shown by the API)',
    usage: '--company ID --kind salary|supplier_payment --amount A [--date YYYY-MM-DD]',
    help: '  --amount A   decimal, e.g. 18500.00\n  --date D     YYYY-MM-DD (default: today)',
    options: { company: str, kind: str, amount: str, date: str },
    required: ['company', 'kind', 'amount'],
    operation: 'movements.record',
    args: (v) => ({ company: v.company, kind: v.kind, amount: v.amount, date: v.date }),
    text: resultText((id) => `Movement ${id} recorded.`),
  }),
  command({
    name: 'pos pending',
    summary: 'products changed through the API awaiting point-of-sale sync',
    usage: '--company ID',
    help: '',
    options: { company: str },
    required: ['company'],
    operation: 'pos.pending',
    args: (v) => ({ company: v.company }),
    text: (result) => table(result.products),
  }),
  // ---- lists verify, lists rebuild: the counters behind the lists' totals ----
  command({
    name: 'lists verify',
    summary: "compare the counters behind the lists' totals with the rows (exit 1 when they differ)",
    usage: '[--company ID]',
    help: [
      '  --company ID   only this company (without it: every company, and the global customers)',
      '',
      'Rows loaded with the triggers off (pg_restore --disable-triggers, session_replication_role =',
      'replica, a bulk import) are missing from the counters: the API answers total 0 over them.',
      'Lists each difference (at most 200) and exits 1; repair with: bin/invoicing lists rebuild.',
    ].join('\n'),
    options: { company: str },
    operation: 'lists.verify',
    args: (v) => ({ company: v.company }),
    failed: (result) => !result.exact,
    text: (result) => {
      const scope = result.company_id === null ? 'every company' : `company ${result.company_id}`;
      if (result.exact) return `The list counters of ${scope} agree with the rows.`;
      const more = result.difference_count - result.differences.length;
      return [
        `The list counters of ${scope} differ from the rows in ${result.difference_count} place(s):`,
        table(
          result.differences.map((difference) => ({
            ...difference,
            key: Object.entries(difference.key)
              .map(([name, value]) => `${name}=${value}`)
              .join(' '),
          })),
          [
            ['COUNTER', 'counter'],
            ['COMPANY', 'company_id'],
            ['KEY', 'key'],
            ['COUNTED', 'counted'],
            ['ROWS', 'rows'],
          ],
        ),
        ...(more > 0 ? [`... and ${more} more (--json lists the first ${result.differences.length}).`] : []),
        '',
        `Repair them (the server may keep running): bin/invoicing lists rebuild${result.company_id === null ? '' : ` --company ${result.company_id}`}`,
      ].join('\n');
    },
  }),
  command({
    name: 'lists rebuild',
    summary: "rebuild the counters behind the lists' totals from the rows, while the server runs",
    usage: '[--company ID]',
    help: [
      '  --company ID   only this company (without it: every company, and the global customers)',
      '',
      'Under the lock the counters migration took: API writes wait until it commits (reads go on),',
      'so no write is lost or counted twice. Run it after loading rows with the triggers off.',
    ].join('\n'),
    options: { company: str },
    operation: 'lists.rebuild',
    args: (v) => ({ company: v.company }),
    text: (result) => {
      const scope = result.company_id === null ? 'every company' : `company ${result.company_id}`;
      return [
        `List counters of ${scope} rebuilt from the rows; ${result.repaired} difference(s) repaired.`,
        table(result.counters, [
          ['COUNTER', 'counter'],
          ['DIFFERENCES', 'differences'],
          ['ROWS WRITTEN', 'rows'],
        ]),
      ].join('\n');
    },
  }),
  command({
    name: 'audit',
    summary: 'show the audit trail: who changed what, when, with which outcome',
    usage: '[--company ID] [--since DATE] [--limit N]',
    help: [
      '  --company ID   only what concerns this company',
      '  --since DATE   from a day YYYY-MM-DD (midnight in TZ_NAME), a moment 2026-11-22T09:30:00+02:00,',
      '                 or a time ago: 30m, 6h, 2d',
      '  --limit N      the latest N entries (default 100, at most 1000), oldest first',
      '',
      'Every command that changes something writes one entry in the same transaction as the change',
      '(a refused or failed one, after it). Who: --actor, or the OS user. Secrets are never recorded.',
    ].join('\n'),
    options: { company: str, since: str, limit: str },
    operation: 'audit.list',
    args: (v) => ({ company: v.company, since: v.since, limit: v.limit }),
    text: (result) =>
      table(
        result.entries.map((entry) => ({
          ...entry,
          object: entry.object_type ? `${entry.object_type} ${entry.object_id ?? '-'}` : null,
          note: entry.detail.message ?? null,
        })),
        [
          ['AT', 'at'],
          ['ACTOR', 'actor'],
          ['COMMAND', 'command'],
          ['COMPANY', 'company_id'],
          ['OBJECT', 'object'],
          ['OUTCOME', 'outcome'],
          ['NOTE', 'note'],
        ],
      ),
  }),
  command({
    name: 'demo',
    summary: 'create a demo company with data; prints a live and a test key',
    usage: '',
    help: 'A Mozambican shop with customers, products of every type, invoices in every status, receipts and treasury movements.',
    options: {},
    operation: 'demo',
    args: () => ({}),
    text: demoText,
  }),

  // ---- webhooks (src/cli/webhooks.ts) ----
  ...WEBHOOK_COMMANDS,

  // ---- backup, restore (src/cli/backup.ts) ----
  ...BACKUP_COMMANDS,

  // ---- requests list, requests show: the request log (src/cli/requests.ts) ----
  ...REQUEST_COMMANDS,

  // ---- staff create|list|disable|reset: the support console's people (src/cli/staff.ts) ----
  ...STAFF_COMMANDS,

  command({
    name: 'deprecations usage',
    summary: 'which keys of which companies used a deprecated route, parameter or field, last 30 days',
    usage: '',
    help: 'From the request log (src/http/deprecation.ts marks the items; none in v1). Reach these companies before the sunset.',
    options: {},
    operation: 'deprecations.usage',
    args: () => ({}),
    text: (usage) =>
      usage.uses.length === 0
        ? `No request used a deprecated item in the last ${usage.days} days.`
        : [
            `Deprecated items used in the last ${usage.days} days:`,
            table(usage.uses, [
              ['ITEM', 'item'],
              ['COMPANY', 'company_id'],
              ['NAME', 'company_name'],
              ['KEY', 'api_key_id'],
              ['PREFIX', 'api_key'],
              ['REQUESTS', 'requests'],
              ['LAST USED', 'last_used_at'],
            ]),
          ].join('\n'),
  }),
];

export const SERVE_HELP = `Usage: bin/invoicing serve [--demo] [--json]

Runs the partner API server: applies migrations, listens on HOST:PORT. Without DATABASE_URL it
uses the embedded database in DATA_DIR, which it locks, and opens the admin socket there so that
other commands work while it runs. It creates no company: the first start says how to create one
and its keys.

Before creating anything it checks the whole configuration, that PORT (and OPS_PORT) are free,
and that DATA_DIR holds a database or may hold a new one: a DATA_DIR that does not exist is
created (its parent must exist) and said loudly; one holding other files is refused.
With OPS_PORT, it also serves /healthz, /readyz and /metrics on OPS_HOST:OPS_PORT.
It serves the docs on DOCS_PORT and the support console on CONSOLE_HOST:CONSOLE_PORT
(docs/console.md), each on its own port; either missing never stops the API.

  --demo   create the demo company, and print its keys, if the database has no company at all
           (what npm start, the quick start, does), with a demo administrator of the console and
           its setup link; never with NODE_ENV=production
  --json   print one JSON line when ready ({url, ...}); logs go to stderr`;

export const GLOBAL_OPTIONS: OptionSpecs = {
  json: bool,
  debug: bool,
  actor: str,
  help: { type: 'boolean', short: 'h' },
};

export function findCommand(words: readonly string[]): Command | undefined {
  return COMMANDS.find((command) => command.name === words.join(' '));
}

export const GROUPS = [...new Set(COMMANDS.map((command) => command.name.split(' ')[0] as string))];

export function usageLine(command: Command): string {
  return `bin/invoicing ${command.name}${command.usage ? ` ${command.usage}` : ''} [--json] [--debug] [--actor NAME]`;
}

export function commandHelp(command: Command): string {
  return [
    `Usage: ${usageLine(command)}`,
    '',
    `${command.summary[0]?.toUpperCase()}${command.summary.slice(1)}.`,
  ]
    .concat(command.help ? ['', command.help] : [])
    .join('\n');
}

export function groupHelp(group: string): string {
  const commands = COMMANDS.filter((command) => command.name.split(' ')[0] === group);
  return [
    `Usage: bin/invoicing ${group} <command> [options]`,
    '',
    ...commands.map((command) => `  ${`${command.name} ${command.usage}`.trim()}\n      ${command.summary}`),
  ].join('\n');
}

export function generalHelp(): string {
  const lines: [string, string][] = [
    ['serve [--demo]', 'the API server (what npm start runs)'],
    ...COMMANDS.map((command): [string, string] => [
      `${command.name} ${command.usage}`.trim(),
      command.summary,
    ]),
  ];
  return [
    'Usage: bin/invoicing <command> [options] [--json] [--debug]',
    '',
    'Operator command line of the invoicing service (Partner API v1).',
    '',
    'Commands:',
    ...lines.map(([usage, summary]) => `  ${usage}\n      ${summary}`),
    '',
    'Options of every command:',
    '  --json         print one JSON object on stdout (a failure: one JSON object on stderr)',
    '  --debug        show the details (stack) of an unexpected failure',
    '  --actor NAME   who runs it, for the audit trail (default: the OS user)',
    '  --help         help of the command',
    '  --version      the version of the service (bin/invoicing --version)',
    '',
    'Environment: DATABASE_URL (PostgreSQL; without it, the embedded database in DATA_DIR, default',
    './data), PORT (3000), HOST (127.0.0.1), OPS_PORT, TZ_NAME, REDIS_URL, DOCS_URL, LOG_LEVEL,',
    'LOG_FORMAT, RATE_LIMIT_*, WEBHOOK_*. Times are shown in TZ_NAME.',
    'Exit status: 0 done, 1 refused or failed (message on stderr), 2 wrong usage (also a bad value).',
  ].join('\n');
}
