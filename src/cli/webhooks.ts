// `bin/invoicing webhooks ...`: the operator's commands for webhook endpoints (docs/webhooks.md).
// Joined to the command table of src/cli/commands.ts; nothing here touches the database.
import { EVENT_TYPES } from '../webhooks/event-types.js';
import type { Command } from './commands.js';
import { asRow, details, field, type Row, table } from './output.js';

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;

function endpointText(headline: string) {
  return (result: unknown) =>
    `${headline.replace('{id}', String(field(result, 'id')))}\n${details(asRow(result))}`;
}

export const WEBHOOK_COMMANDS: readonly Command[] = [
  {
    name: 'webhooks create',
    summary: 'add a webhook endpoint of a company; its signing secret is shown once',
    usage: '--company ID --url URL [--events a,b|all]',
    help: [
      '  --company ID   the company whose events the endpoint receives (only its own, ever)',
      '  --url URL      https URL (http only to loopback with WEBHOOK_ALLOW_HTTP=true); private',
      '                 and link-local addresses are refused unless WEBHOOK_ALLOW_PRIVATE=true',
      `  --events E     comma-separated, or all (default): ${EVENT_TYPES.join(', ')}`,
    ].join('\n'),
    options: { company: str, url: str, events: str },
    required: ['company', 'url'],
    operation: 'webhooks.create',
    args: (v) => ({ company: v.company, url: v.url, events: v.events }),
    text: (result) => {
      const endpoint = asRow(result);
      return [
        `Webhook endpoint ${endpoint.id} created for company ${endpoint.company_id}.`,
        `  url:     ${endpoint.url}`,
        `  events:  ${(endpoint.events as string[]).join(', ')}`,
        `  secret:  ${endpoint.secret}`,
        '',
        'The secret is shown only this once: give it to the partner now (they verify signatures with it).',
        `Send a test event: bin/invoicing webhooks test ${endpoint.id}`,
      ].join('\n');
    },
  },
  {
    name: 'webhooks list',
    summary: "list a company's webhook endpoints (never their secrets)",
    usage: '--company ID',
    help: '',
    options: { company: str },
    required: ['company'],
    operation: 'webhooks.list',
    args: (v) => ({ company: v.company }),
    text: (result) =>
      table(field(result, 'endpoints') as Row[], [
        ['ID', 'id'],
        ['URL', 'url'],
        ['EVENTS', 'events'],
        ['ENABLED', 'enabled'],
        ['DISABLED BECAUSE', 'disabled_reason'],
      ]),
  },
  {
    name: 'webhooks disable',
    summary: 'stop deliveries to an endpoint (queued ones wait until it is enabled)',
    usage: 'ID',
    help: '',
    options: {},
    positional: 'ID',
    operation: 'webhooks.disable',
    args: (_v, id) => ({ id }),
    text: endpointText('Webhook endpoint {id} disabled.'),
  },
  {
    name: 'webhooks enable',
    summary: 'resume deliveries to an endpoint (its URL is checked again)',
    usage: 'ID',
    help: 'Deliveries queued while it was disabled go out at once.',
    options: {},
    positional: 'ID',
    operation: 'webhooks.enable',
    args: (_v, id) => ({ id }),
    text: endpointText('Webhook endpoint {id} enabled.'),
  },
  {
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
        `New secret of webhook endpoint ${field(result, 'id')}: ${field(result, 'secret')}`,
        `The previous secret also signs until ${field(result, 'previous_secret_valid_until')}.`,
        'The new secret is shown only this once.',
      ].join('\n'),
  },
  {
    name: 'webhooks test',
    summary: 'send a ping event to an endpoint and show how it answered',
    usage: 'ID',
    help: 'This command sends the ping itself at once (also when no server runs), signed like every event; it is never retried.',
    options: {},
    positional: 'ID',
    operation: 'webhooks.test',
    args: (_v, id) => ({ id }),
    text: (result) =>
      `Ping ${field(result, 'event_id')}: ${field(result, 'status')}\n${details(asRow(result))}`,
  },
  {
    name: 'webhooks deliveries',
    summary: 'the delivery log of an endpoint, newest first',
    usage: 'ID [--failed] [--limit N]',
    help: '  --failed    only failed attempts\n  --limit N   rows, 1 to 1000 (default 20)',
    options: { failed: bool, limit: str },
    positional: 'ID',
    operation: 'webhooks.deliveries',
    args: (v, id) => ({ id, failed: v.failed, limit: v.limit }),
    text: (result) =>
      table(field(result, 'deliveries') as Row[], [
        ['EVENT', 'event_id'],
        ['TYPE', 'type'],
        ['ATTEMPT', 'attempt'],
        ['STATUS', 'status'],
        ['HTTP', 'status_code'],
        ['MS', 'latency_ms'],
        ['AT', 'at'],
        ['ERROR', 'error'],
      ]),
  },
  {
    name: 'webhooks resend',
    summary: 'deliver an event again to the enabled endpoints that had it',
    usage: 'EVENT_ID',
    help: 'EVENT_ID is the evt_... id shown by webhooks deliveries. It keeps its id (receivers dedupe by webhook-id).',
    options: {},
    positional: 'EVENT_ID',
    operation: 'webhooks.resend',
    args: (_v, event) => ({ event }),
    text: (result) => {
      const deliveries = field(result, 'deliveries') as Row[];
      return `Event ${field(result, 'event_id')} queued again for endpoint(s) ${deliveries
        .map((delivery) => delivery.endpoint_id)
        .join(', ')}.`;
    },
  },
];
