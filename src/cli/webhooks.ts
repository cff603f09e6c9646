// `bin/invoicing webhooks ...`: the operator's commands for webhook endpoints (docs/webhooks.md),
// in the shape of src/cli/command.ts. Joined to the command table of src/cli/commands.ts; nothing
// here touches the database.
import type { OperationResult } from '../operations/index.js';
import { EVENT_FAMILIES, EVENT_TYPES } from '../webhooks/event-types.js';
import { bool, type Command, command, str } from './command.js';
import { details, table } from './output.js';

const EVENTS_HELP = [
  `  --events E     comma-separated types and families, or all (default): ${EVENT_FAMILIES.map((family) => `${family}.*`).join(', ')}`,
  `                 (every type of the family, also later ones), ${EVENT_TYPES.join(', ')}`,
].join('\n');

function endpointText(headline: (id: number) => string) {
  return (endpoint: OperationResult<'webhooks.enable'>) => `${headline(endpoint.id)}\n${details(endpoint)}`;
}

export const WEBHOOK_COMMANDS: readonly Command[] = [
  command({
    name: 'webhooks create',
    summary: 'add a webhook endpoint of a company; its signing secret is shown once',
    usage: '--company ID --url URL [--events a,b|all]',
    help: [
      '  --company ID   the company whose events the endpoint receives (only its own, ever)',
      '  --url URL      https URL (http only to loopback with WEBHOOK_ALLOW_HTTP=true); private',
      '                 and link-local addresses are refused unless WEBHOOK_ALLOW_PRIVATE=true',
      EVENTS_HELP,
    ].join('\n'),
    options: { company: str, url: str, events: str },
    required: ['company', 'url'],
    operation: 'webhooks.create',
    args: (v) => ({ company: v.company, url: v.url, events: v.events }),
    text: (endpoint) =>
      [
        `Webhook endpoint ${endpoint.id} created for company ${endpoint.company_id}.`,
        `  url:     ${endpoint.url}`,
        `  events:  ${endpoint.events.join(', ')}`,
        `  secret:  ${endpoint.secret}`,
        '',
        'The secret is shown only this once: give it to the partner now (they verify signatures with it).',
        `Send a test event: bin/invoicing webhooks test ${endpoint.id}`,
      ].join('\n'),
  }),
  command({
    name: 'webhooks list',
    summary: "list a company's webhook endpoints with their health (never their secrets)",
    usage: '--company ID',
    help: [
      'Health: the last successful attempt, since when it has been failing (the first failed attempt',
      'after the last success, while the latest one failed), the last error and the deliveries pending.',
    ].join('\n'),
    options: { company: str },
    required: ['company'],
    operation: 'webhooks.list',
    args: (v) => ({ company: v.company }),
    text: (result) =>
      table(result.endpoints, [
        ['ID', 'id'],
        ['URL', 'url'],
        ['EVENTS', 'events'],
        ['ENABLED', 'enabled'],
        ['LAST SUCCESS', 'last_success_at'],
        ['FAILING SINCE', 'failing_since'],
        ['PENDING', 'deliveries_pending'],
        ['LAST ERROR', 'last_error'],
        ['DISABLED BECAUSE', 'disabled_reason'],
      ]),
  }),
  command({
    name: 'webhooks update',
    summary: 'change the events an endpoint receives, or its URL',
    usage: 'ID [--events a,b|all] [--url URL]',
    help: [
      EVENTS_HELP,
      '  --url URL      a new https URL, checked like a new endpoint',
      'Events recorded from now on follow the new list; deliveries already queued still go.',
      'Example: bin/invoicing webhooks update 3 --events invoice.*,customer.created',
    ].join('\n'),
    options: { events: str, url: str },
    positional: 'ID',
    operation: 'webhooks.update',
    args: (v, id) => ({ id, events: v.events, url: v.url }),
    text: endpointText((id) => `Webhook endpoint ${id} updated.`),
  }),
  command({
    name: 'webhooks disable',
    summary: 'stop deliveries to an endpoint (queued ones wait until it is enabled)',
    usage: 'ID',
    help: '',
    options: {},
    positional: 'ID',
    operation: 'webhooks.disable',
    args: (_v, id) => ({ id }),
    text: endpointText((id) => `Webhook endpoint ${id} disabled.`),
  }),
  command({
    name: 'webhooks enable',
    summary: 'resume deliveries to an endpoint (its URL is checked again)',
    usage: 'ID',
    help: 'Deliveries queued while it was disabled go out at once.',
    options: {},
    positional: 'ID',
    operation: 'webhooks.enable',
    args: (_v, id) => ({ id }),
    text: endpointText((id) => `Webhook endpoint ${id} enabled.`),
  }),
  command({
    name: 'webhooks rotate-secret',
    summary: 'new signing secret, shown once; the old one keeps signing for 24 hours',
    usage: 'ID',
    help: 'During the 24 hours every delivery carries both signatures, so the partner can switch without losing one.',
    options: {},
    positional: 'ID',
    operation: 'webhooks.rotate-secret',
    args: (_v, id) => ({ id }),
    text: (result) =>
      [
        `New secret of webhook endpoint ${result.id}: ${result.secret}`,
        `The previous secret also signs until ${result.previous_secret_valid_until}.`,
        'The new secret is shown only this once.',
      ].join('\n'),
  }),
  command({
    name: 'webhooks test',
    summary: 'send a ping, or a sample event of a type, to an endpoint and show how it answered',
    usage: 'ID [--type T]',
    help: [
      `  --type T   a sample of this type (${EVENT_TYPES.join(', ')}), built from the company's`,
      '             newest real resource of that kind (a paid invoice for invoice.paid, ...); without it, a ping',
      'This command sends it itself at once (also when no server runs), to this endpoint only, whatever it',
      'subscribes to, signed like every event, with cause {kind: system, name: webhooks test}; never retried.',
    ].join('\n'),
    options: { type: str },
    positional: 'ID',
    operation: 'webhooks.test',
    args: (v, id) => ({ id, type: v.type }),
    text: (result) =>
      `${result.type === 'ping' ? 'Ping' : `Sample ${result.type}`} ${result.event_id}: ${result.status}\n${details(result)}`,
  }),
  command({
    name: 'webhooks deliveries',
    summary: 'the delivery log of an endpoint, newest first',
    usage: 'ID [--failed] [--limit N]',
    help: '  --failed    only failed attempts\n  --limit N   rows, 1 to 1000 (default 20)',
    options: { failed: bool, limit: str },
    positional: 'ID',
    operation: 'webhooks.deliveries',
    args: (v, id) => ({ id, failed: v.failed, limit: v.limit }),
    text: (result) =>
      table(result.deliveries, [
        ['EVENT', 'event_id'],
        ['TYPE', 'type'],
        ['ATTEMPT', 'attempt'],
        ['STATUS', 'status'],
        ['HTTP', 'status_code'],
        ['MS', 'latency_ms'],
        ['AT', 'at'],
        ['ERROR', 'error'],
      ]),
  }),
  command({
    name: 'webhooks resend',
    summary: 'deliver an event again, or every event of a time window to one endpoint',
    usage: 'EVENT_ID | --endpoint ID --since TIME [--until TIME]',
    help: [
      'EVENT_ID: the evt_... id shown by webhooks deliveries, sent again to the enabled endpoints that had it.',
      "  --endpoint ID   every event of the endpoint's company in the window whose type it subscribes to",
      `                  (oldest first, at most 1000 a run: the answer says where to go on)`,
      '  --since TIME    YYYY-MM-DD (midnight in TZ_NAME), 2026-11-22T09:30:00+02:00, or a time ago: 30m, 6h, 2d',
      '  --until TIME    the end of the window (default: now), in the same forms',
      'Events keep their id and body (receivers dedupe by webhook-id).',
    ].join('\n'),
    options: { endpoint: str, since: str, until: str },
    positional: 'EVENT_ID',
    positionalOptional: true,
    operation: 'webhooks.resend',
    args: (v, event) => ({ event, endpoint: v.endpoint, since: v.since, until: v.until }),
    text: (result) =>
      'deliveries' in result
        ? `Event ${result.event_id} queued again for endpoint(s) ${result.deliveries
            .map((delivery) => delivery.endpoint_id)
            .join(', ')}.`
        : [
            `${result.resent} event(s) of ${result.since} to ${result.until ?? 'now'} queued again for endpoint ${result.endpoint_id}.`,
            ...(result.more
              ? [
                  `More events remain: bin/invoicing webhooks resend --endpoint ${result.endpoint_id} --since ${result.next_since}${result.until ? ` --until ${result.until}` : ''}`,
                ]
              : []),
          ].join('\n'),
  }),
];
