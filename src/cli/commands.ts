// The commands of decisions.md "Operator command line": how each one reads its flags, which
// operation of the shared table (src/operations/index.ts) it runs, and how its result reads as
// text, typed by that operation's result (src/cli/command.ts). Nothing here touches the database,
// so `--help` and usage errors stay fast.
import type { TextKey, Translate, UiLanguage } from '../i18n/catalog.js';
import { translator } from '../i18n/catalog.js';
import { SCOPES } from '../keys/scopes.js';
import type { OperationResult } from '../operations/index.js';
import { BACKUP_COMMANDS } from './backup.js';
import { bool, type Command, command, type OptionSpecs, str, type TextContext } from './command.js';
import { details, table } from './output.js';
import { KEY_COMMANDS, keyLines, REQUEST_COMMANDS } from './requests.js';
import { STAFF_COMMANDS } from './staff.js';
import { curlLine } from './urls.js';
import { WEBHOOK_COMMANDS } from './webhooks.js';

const SCOPE_LIST = SCOPES.join(', ');

function keyText(key: OperationResult<'keys.create'>, { t, apiBaseUrl }: TextContext): string {
  return [
    t('cli.key.created', { mode: key.mode, id: key.id, company: key.company_id }),
    ...keyLines(t, key),
    '',
    t('cli.key.shown_once'),
    t('cli.try_it', { curl: curlLine(key.key, apiBaseUrl) }),
  ].join('\n');
}

function demoText(demo: OperationResult<'demo'>, { t, apiBaseUrl }: TextContext): string {
  // (null only for serve's "into an empty database", never from this command)
  if (!demo) return t('cli.demo.exists');
  const { company, live_key: live, test_key: test, counts } = demo;
  return [
    t('cli.demo.created', { id: company.id, name: company.name, nuit: company.nuit ?? '-' }),
    // (the counts' names are the --json field names)
    `  ${Object.entries(counts)
      .map(([name, count]) => `${count} ${name}`)
      .join(', ')}`,
    '',
    table(t, demo.invoices, [
      ['col.invoice', 'id'],
      ['col.status', 'status'],
      ['col.customer', 'customer'],
    ]),
    '',
    `  ${t('cli.demo.live_key', { key: live.key })}`,
    `  ${t('cli.demo.test_key', { key: test.key })}`,
    '',
    t('cli.demo.shown_once'),
    t('cli.try_it', { curl: curlLine(live.key, apiBaseUrl) }),
  ].join('\n');
}

function companyApiText(enabled: boolean) {
  return (company: OperationResult<'companies.enable-api'>, { t }: TextContext) =>
    t(enabled ? 'cli.company.api_enabled' : 'cli.company.api_disabled', {
      id: company.id,
      name: company.name,
    });
}

/** A headline naming the result's id, then every field of the result. */
function resultText(headline: TextKey) {
  return (result: { id: number }, { t }: TextContext) =>
    `${t(headline, { id: result.id })}\n${details(result)}`;
}

export const COMMANDS: readonly Command[] = [
  command({
    name: 'migrate',
    summary: 'cmd.migrate',
    usage: '',
    help: 'cmd.migrate.help',
    options: {},
    operation: 'migrate',
    args: () => ({}),
    text: (result, { t }) => t('cli.migrated', { storage: result.storage }),
  }),
  command({
    name: 'companies create',
    summary: 'cmd.companies create',
    usage: '--name N [--nuit T]',
    help: 'cmd.companies create.help',
    options: { name: str, nuit: str },
    required: ['name'],
    operation: 'companies.create',
    args: (v) => ({ name: v.name, nuit: v.nuit }),
    text: (company, { t }) =>
      [
        company.nuit
          ? t('cli.company.created_nuit', { id: company.id, name: company.name, nuit: company.nuit })
          : t('cli.company.created', { id: company.id, name: company.name }),
        t('cli.company.enable_hint', { id: company.id }),
      ].join('\n'),
  }),
  command({
    name: 'companies list',
    summary: 'cmd.companies list',
    usage: '',
    options: {},
    operation: 'companies.list',
    args: () => ({}),
    text: (result, { t }) =>
      table(t, result.companies, [
        ['col.id', 'id'],
        ['col.name', 'name'],
        ['col.nuit', 'nuit'],
        ['col.partner_api', 'partner_api_enabled'],
      ]),
  }),
  command({
    name: 'companies enable-api',
    summary: 'cmd.companies enable-api',
    usage: 'ID',
    help: 'cmd.companies enable-api.help',
    options: {},
    positional: 'ID',
    operation: 'companies.enable-api',
    args: (_v, id) => ({ id }),
    text: companyApiText(true),
  }),
  command({
    name: 'companies disable-api',
    summary: 'cmd.companies disable-api',
    usage: 'ID',
    help: 'cmd.companies disable-api.help',
    options: {},
    positional: 'ID',
    operation: 'companies.disable-api',
    args: (_v, id) => ({ id }),
    text: companyApiText(false),
  }),
  command({
    name: 'keys create',
    summary: 'cmd.keys create',
    usage: '--company ID [--mode live|test] [--scopes a,b|all] [--days 1..365]',
    help: 'cmd.keys create.help',
    helpParams: { scopes: SCOPE_LIST },
    options: { company: str, mode: str, scopes: str, days: str },
    required: ['company'],
    operation: 'keys.create',
    args: (v) => ({ company: v.company, mode: v.mode, scopes: v.scopes, days: v.days }),
    text: keyText,
  }),
  command({
    name: 'keys list',
    summary: 'cmd.keys list',
    usage: '--company ID',
    options: { company: str },
    required: ['company'],
    operation: 'keys.list',
    args: (v) => ({ company: v.company }),
    text: (result, { t }) =>
      table(t, result.keys, [
        ['col.id', 'id'],
        ['col.prefix', 'display_prefix'],
        ['col.mode', 'mode'],
        ['col.status', 'status'],
        ['col.days_left', 'days_left'],
        ['col.expires', 'expires_at'],
        ['col.last_used', 'last_used_at'],
        ['col.scopes', 'scopes'],
      ]),
  }),
  command({
    name: 'keys revoke',
    summary: 'cmd.keys revoke',
    usage: 'KEY_ID',
    help: 'cmd.keys revoke.help',
    options: {},
    positional: 'KEY_ID',
    operation: 'keys.revoke',
    args: (_v, id) => ({ id }),
    text: (result, { t }) => t('cli.key.revoked', { id: result.id, at: result.revoked_at }),
  }),
  // ---- keys roll, keys usage (src/cli/requests.ts) ----
  ...KEY_COMMANDS,
  command({
    name: 'taxes create',
    summary: 'cmd.taxes create',
    usage: '(--company ID | --global) --name N --rate PERCENT',
    help: 'cmd.taxes create.help',
    options: { company: str, global: bool, name: str, rate: str },
    required: ['name', 'rate'],
    operation: 'taxes.create',
    args: (v) => ({ company: v.company, global: v.global, name: v.name, rate: v.rate }),
    text: (tax, { t }) =>
      tax.company_id === null
        ? t('cli.tax.created_global', { id: tax.id, name: tax.name, rate: tax.rate })
        : t('cli.tax.created', { id: tax.id, name: tax.name, rate: tax.rate, company: tax.company_id }),
  }),
  command({
    name: 'taxes list',
    summary: 'cmd.taxes list',
    usage: '--company ID',
    help: 'cmd.taxes list.help',
    options: { company: str },
    required: ['company'],
    operation: 'taxes.list',
    args: (v) => ({ company: v.company }),
    text: (result, { t }) =>
      result.taxes.length === 0
        ? t('cli.taxes.none', { company: result.company_id })
        : table(
            t,
            result.taxes.map((tax) => ({
              id: tax.id,
              name: tax.name,
              rate: `${tax.rate}%`,
              owner:
                tax.company_id === null
                  ? t('cli.tax.global')
                  : t('cli.tax.of_company', { company: tax.company_id }),
            })),
            [
              ['col.id', 'id'],
              ['col.name', 'name'],
              ['col.rate', 'rate'],
              ['col.owner', 'owner'],
            ],
          ),
  }),
  command({
    name: 'customers create',
    summary: 'cmd.customers create',
    usage: '--global --name N [--email E] [--nuit T] [--phone P]',
    help: 'cmd.customers create.help',
    options: { global: bool, name: str, email: str, nuit: str, phone: str },
    required: ['name'],
    operation: 'customers.create',
    args: (v) => ({ global: v.global, name: v.name, email: v.email, nuit: v.nuit, phone: v.phone }),
    text: (result, { t }) => t('cli.customer.created', { id: result.id, name: result.name }),
  }),
  command({
    name: 'customers list',
    summary: 'cmd.customers list',
    usage: '--company ID [--limit N]',
    help: 'cmd.customers list.help',
    options: { company: str, limit: str },
    required: ['company'],
    operation: 'customers.list',
    args: (v) => ({ company: v.company, limit: v.limit }),
    text: (result, { t }) =>
      table(t, result.customers, [
        ['col.id', 'id'],
        ['col.name', 'name'],
        ['col.type', 'type'],
        ['col.nuit', 'nuit'],
        ['col.email', 'email'],
        ['col.phone', 'phone'],
        ['col.global', 'global'],
      ]),
  }),
  command({
    name: 'invoices list',
    summary: 'cmd.invoices list',
    usage: '--company ID [--status S] [--limit N]',
    help: 'cmd.invoices list.help',
    options: { company: str, status: str, limit: str },
    required: ['company'],
    operation: 'invoices.list',
    args: (v) => ({ company: v.company, status: v.status, limit: v.limit }),
    text: (result, { t }) =>
      table(t, result.invoices, [
        ['col.id', 'id'],
        ['col.code', 'invoice_code'],
        ['col.status', 'status'],
        ['col.date', 'invoice_date'],
        ['col.customer', 'customer'],
        ['col.total', 'grand_total'],
        ['col.to_pay', 'remaining_amount'],
      ]),
  }),
  command({
    name: 'invoices issue',
    summary: 'cmd.invoices issue',
    usage: 'ID',
    options: {},
    positional: 'ID',
    operation: 'invoices.issue',
    args: (_v, id) => ({ id }),
    text: resultText('cli.invoice.issued'),
  }),
  command({
    name: 'invoices cancel',
    summary: 'cmd.invoices cancel',
    usage: 'ID',
    options: {},
    positional: 'ID',
    operation: 'invoices.cancel',
    args: (_v, id) => ({ id }),
    text: resultText('cli.invoice.cancelled'),
  }),
  command({
    name: 'payments record',
    summary: 'cmd.payments record',
    usage: '--invoice ID --amount A [--date YYYY-MM-DD] [--method M]',
    help: 'cmd.payments record.help',
    options: { invoice: str, amount: str, date: str, method: str },
    required: ['invoice', 'amount'],
    operation: 'payments.record',
    args: (v) => ({ invoice: v.invoice, amount: v.amount, date: v.date, method: v.method }),
    text: resultText('cli.receipt.recorded'),
  }),
  command({
    name: 'movements record',
    summary: 'cmd.movements record',
    usage: '--company ID --kind salary|supplier_payment --amount A [--date YYYY-MM-DD]',
    help: 'cmd.movements record.help',
    options: { company: str, kind: str, amount: str, date: str },
    required: ['company', 'kind', 'amount'],
    operation: 'movements.record',
    args: (v) => ({ company: v.company, kind: v.kind, amount: v.amount, date: v.date }),
    text: resultText('cli.movement.recorded'),
  }),
  command({
    name: 'pos pending',
    summary: 'cmd.pos pending',
    usage: '--company ID',
    options: { company: str },
    required: ['company'],
    operation: 'pos.pending',
    args: (v) => ({ company: v.company }),
    text: (result, { t }) => table(t, result.products),
  }),
  // ---- lists verify, lists rebuild: the counters behind the lists' totals ----
  command({
    name: 'lists verify',
    summary: 'cmd.lists verify',
    usage: '[--company ID]',
    help: 'cmd.lists verify.help',
    options: { company: str },
    operation: 'lists.verify',
    args: (v) => ({ company: v.company }),
    failed: (result) => !result.exact,
    text: (result, { t }) => {
      const scope =
        result.company_id === null
          ? t('cli.lists.every_company')
          : t('cli.lists.company', { id: result.company_id });
      if (result.exact) return t('cli.lists.agree', { scope });
      const more = result.difference_count - result.differences.length;
      return [
        t('cli.lists.differ', { scope, count: result.difference_count }),
        table(
          t,
          result.differences.map((difference) => ({
            ...difference,
            key: Object.entries(difference.key)
              .map(([name, value]) => `${name}=${value}`)
              .join(' '),
          })),
          [
            ['col.counter', 'counter'],
            ['col.company', 'company_id'],
            ['col.key', 'key'],
            ['col.counted', 'counted'],
            ['col.rows', 'rows'],
          ],
        ),
        ...(more > 0 ? [t('cli.lists.more', { count: more, shown: result.differences.length })] : []),
        '',
        t('cli.lists.repair', {
          command: `bin/invoicing lists rebuild${result.company_id === null ? '' : ` --company ${result.company_id}`}`,
        }),
      ].join('\n');
    },
  }),
  command({
    name: 'lists rebuild',
    summary: 'cmd.lists rebuild',
    usage: '[--company ID]',
    help: 'cmd.lists rebuild.help',
    options: { company: str },
    operation: 'lists.rebuild',
    args: (v) => ({ company: v.company }),
    text: (result, { t }) => {
      const scope =
        result.company_id === null
          ? t('cli.lists.every_company')
          : t('cli.lists.company', { id: result.company_id });
      return [
        t('cli.lists.rebuilt', { scope, count: result.repaired }),
        table(t, result.counters, [
          ['col.counter', 'counter'],
          ['col.differences', 'differences'],
          ['col.rows_written', 'rows'],
        ]),
      ].join('\n');
    },
  }),
  command({
    name: 'audit',
    summary: 'cmd.audit',
    usage: '[--company ID] [--since DATE] [--limit N]',
    help: 'cmd.audit.help',
    options: { company: str, since: str, limit: str },
    operation: 'audit.list',
    args: (v) => ({ company: v.company, since: v.since, limit: v.limit }),
    text: (result, { t }) =>
      table(
        t,
        result.entries.map((entry) => ({
          ...entry,
          object: entry.object_type ? `${entry.object_type} ${entry.object_id ?? '-'}` : null,
          note: entry.detail.message ?? null,
        })),
        [
          ['col.at', 'at'],
          ['col.actor', 'actor'],
          ['col.command', 'command'],
          ['col.company', 'company_id'],
          ['col.object', 'object'],
          ['col.outcome', 'outcome'],
          ['col.note', 'note'],
        ],
      ),
  }),
  command({
    name: 'demo',
    summary: 'cmd.demo',
    usage: '',
    help: 'cmd.demo.help',
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
    summary: 'cmd.deprecations usage',
    usage: '',
    help: 'cmd.deprecations usage.help',
    options: {},
    operation: 'deprecations.usage',
    args: () => ({}),
    text: (usage, { t }) =>
      usage.uses.length === 0
        ? t('cli.deprecations.none', { count: usage.days })
        : [
            t('cli.deprecations.used', { count: usage.days }),
            table(t, usage.uses, [
              ['col.item', 'item'],
              ['col.company', 'company_id'],
              ['col.name', 'company_name'],
              ['col.key', 'api_key_id'],
              ['col.prefix', 'api_key'],
              ['col.requests', 'requests'],
              ['col.last_used', 'last_used_at'],
            ]),
          ].join('\n'),
  }),
];

export const GLOBAL_OPTIONS: OptionSpecs = {
  json: bool,
  debug: bool,
  actor: str,
  lang: str,
  help: { type: 'boolean', short: 'h' },
};

export function findCommand(words: readonly string[]): Command | undefined {
  return COMMANDS.find((command) => command.name === words.join(' '));
}

export const GROUPS = [...new Set(COMMANDS.map((command) => command.name.split(' ')[0] as string))];

export function usageLine(command: Command): string {
  return `bin/invoicing ${command.name}${command.usage ? ` ${command.usage}` : ''} [--json] [--debug] [--actor NAME] [--lang pt|en]`;
}

export function serveHelp(language: UiLanguage): string {
  return translator(language)('help.serve');
}

export function commandHelp(command: Command, language: UiLanguage): string {
  const t = translator(language);
  const summary = t(command.summary);
  return [
    t('help.usage', { line: usageLine(command) }),
    '',
    `${summary[0]?.toUpperCase()}${summary.slice(1)}.`,
  ]
    .concat(command.help ? ['', t(command.help, command.helpParams)] : [])
    .join('\n');
}

export function groupHelp(group: string, language: UiLanguage): string {
  const t = translator(language);
  const commands = COMMANDS.filter((command) => command.name.split(' ')[0] === group);
  return [
    t('help.group_usage', { group }),
    '',
    ...commands.map(
      (command) => `  ${`${command.name} ${command.usage}`.trim()}\n      ${t(command.summary)}`,
    ),
  ].join('\n');
}

export function generalHelp(language: UiLanguage): string {
  const t: Translate = translator(language);
  const lines: [string, string][] = [
    ['serve [--demo]', t('help.serve_summary')],
    ...COMMANDS.map((command): [string, string] => [
      `${command.name} ${command.usage}`.trim(),
      t(command.summary),
    ]),
  ];
  return [
    t('help.general_usage'),
    '',
    t('help.intro'),
    '',
    t('help.commands'),
    ...lines.map(([usage, summary]) => `  ${usage}\n      ${summary}`),
    '',
    t('help.options'),
    '',
    t('help.environment'),
  ].join('\n');
}
