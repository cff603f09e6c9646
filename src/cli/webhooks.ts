// `bin/invoicing webhooks ...`: the operator's commands for webhook endpoints (docs/webhooks.md),
// in the shape of src/cli/command.ts. Joined to the command table of src/cli/commands.ts; nothing
// here touches the database.
import type { TextKey } from '../i18n/catalog.js';
import type { OperationResult } from '../operations/index.js';
import { EVENT_FAMILIES, EVENT_TYPES } from '../webhooks/event-types.js';
import { bool, type Command, command, str, type TextContext } from './command.js';
import { details, table } from './output.js';

/** The lists the help of --events and --type names, from the code. */
const EVENTS_HELP = {
  families: EVENT_FAMILIES.map((family) => `${family}.*`).join(', '),
  types: EVENT_TYPES.join(', '),
};

function endpointText(headline: TextKey) {
  return (endpoint: OperationResult<'webhooks.enable'>, { t }: TextContext) =>
    `${t(headline, { id: endpoint.id })}\n${details(endpoint)}`;
}

export const WEBHOOK_COMMANDS: readonly Command[] = [
  command({
    name: 'webhooks create',
    summary: 'cmd.webhooks create',
    usage: '--company ID --url URL [--events a,b|all]',
    help: 'cmd.webhooks create.help',
    helpParams: EVENTS_HELP,
    options: { company: str, url: str, events: str },
    required: ['company', 'url'],
    operation: 'webhooks.create',
    args: (v) => ({ company: v.company, url: v.url, events: v.events }),
    text: (endpoint, { t }) =>
      [
        t('cli.webhook.created', { id: endpoint.id, company: endpoint.company_id }),
        `  ${t('cli.webhook.url_line', { url: endpoint.url })}`,
        `  ${t('cli.webhook.events_line', { events: endpoint.events.join(', ') })}`,
        `  ${t('cli.webhook.secret_line', { secret: endpoint.secret })}`,
        '',
        t('cli.webhook.secret_once'),
        t('cli.webhook.test_hint', { id: endpoint.id }),
      ].join('\n'),
  }),
  command({
    name: 'webhooks list',
    summary: 'cmd.webhooks list',
    usage: '--company ID',
    help: 'cmd.webhooks list.help',
    options: { company: str },
    required: ['company'],
    operation: 'webhooks.list',
    args: (v) => ({ company: v.company }),
    text: (result, { t }) =>
      table(t, result.endpoints, [
        ['col.id', 'id'],
        ['col.url', 'url'],
        ['col.events', 'events'],
        ['col.enabled', 'enabled'],
        ['col.last_success', 'last_success_at'],
        ['col.failing_since', 'failing_since'],
        ['col.pending', 'deliveries_pending'],
        ['col.last_error', 'last_error'],
        ['col.disabled_because', 'disabled_reason'],
      ]),
  }),
  command({
    name: 'webhooks update',
    summary: 'cmd.webhooks update',
    usage: 'ID [--events a,b|all] [--url URL]',
    help: 'cmd.webhooks update.help',
    helpParams: EVENTS_HELP,
    options: { events: str, url: str },
    positional: 'ID',
    operation: 'webhooks.update',
    args: (v, id) => ({ id, events: v.events, url: v.url }),
    text: endpointText('cli.webhook.updated'),
  }),
  command({
    name: 'webhooks disable',
    summary: 'cmd.webhooks disable',
    usage: 'ID',
    options: {},
    positional: 'ID',
    operation: 'webhooks.disable',
    args: (_v, id) => ({ id }),
    text: endpointText('cli.webhook.disabled'),
  }),
  command({
    name: 'webhooks enable',
    summary: 'cmd.webhooks enable',
    usage: 'ID',
    help: 'cmd.webhooks enable.help',
    options: {},
    positional: 'ID',
    operation: 'webhooks.enable',
    args: (_v, id) => ({ id }),
    text: endpointText('cli.webhook.enabled'),
  }),
  command({
    name: 'webhooks rotate-secret',
    summary: 'cmd.webhooks rotate-secret',
    usage: 'ID',
    help: 'cmd.webhooks rotate-secret.help',
    options: {},
    positional: 'ID',
    operation: 'webhooks.rotate-secret',
    args: (_v, id) => ({ id }),
    text: (result, { t }) =>
      [
        t('cli.webhook.new_secret', { id: result.id, secret: result.secret }),
        t('cli.webhook.previous_signs', { until: result.previous_secret_valid_until }),
        t('cli.webhook.new_secret_once'),
      ].join('\n'),
  }),
  command({
    name: 'webhooks test',
    summary: 'cmd.webhooks test',
    usage: 'ID [--type T]',
    help: 'cmd.webhooks test.help',
    helpParams: EVENTS_HELP,
    options: { type: str },
    positional: 'ID',
    operation: 'webhooks.test',
    args: (v, id) => ({ id, type: v.type }),
    text: (result, { t }) =>
      `${
        result.type === 'ping'
          ? t('cli.webhook.ping', { id: result.event_id, status: result.status })
          : t('cli.webhook.sample', { type: result.type, id: result.event_id, status: result.status })
      }\n${details(result)}`,
  }),
  command({
    name: 'webhooks deliveries',
    summary: 'cmd.webhooks deliveries',
    usage: 'ID [--failed] [--limit N]',
    help: 'cmd.webhooks deliveries.help',
    options: { failed: bool, limit: str },
    positional: 'ID',
    operation: 'webhooks.deliveries',
    args: (v, id) => ({ id, failed: v.failed, limit: v.limit }),
    text: (result, { t }) =>
      table(t, result.deliveries, [
        ['col.event', 'event_id'],
        ['col.type', 'type'],
        ['col.attempt', 'attempt'],
        ['col.status', 'status'],
        ['col.http', 'status_code'],
        ['col.ms', 'latency_ms'],
        ['col.at', 'at'],
        ['col.error', 'error'],
      ]),
  }),
  command({
    name: 'webhooks resend',
    summary: 'cmd.webhooks resend',
    usage: 'EVENT_ID | --endpoint ID --since TIME [--until TIME]',
    help: 'cmd.webhooks resend.help',
    options: { endpoint: str, since: str, until: str },
    positional: 'EVENT_ID',
    positionalOptional: true,
    operation: 'webhooks.resend',
    args: (v, event) => ({ event, endpoint: v.endpoint, since: v.since, until: v.until }),
    text: (result, { t }) =>
      'deliveries' in result
        ? t('cli.webhook.event_resent', {
            id: result.event_id,
            count: result.deliveries.length,
            endpoints: result.deliveries.map((delivery) => delivery.endpoint_id).join(', '),
          })
        : [
            t('cli.webhook.window_resent', {
              count: result.resent,
              since: result.since,
              until: result.until ?? t('cli.now'),
              endpoint: result.endpoint_id,
            }),
            ...(result.more
              ? [
                  t('cli.webhook.more', {
                    command: `bin/invoicing webhooks resend --endpoint ${result.endpoint_id} --since ${result.next_since}${result.until ? ` --until ${result.until}` : ''}`,
                  }),
                ]
              : []),
          ].join('\n'),
  }),
];
