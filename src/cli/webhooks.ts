// `bin/invoicing webhooks ...`: the operator's commands for webhook endpoints (docs/webhooks.md),
// in the shape of src/cli/command.ts. Joined to the command table of src/cli/commands.ts; nothing
// here touches the database.
import type { OperationResult } from '../operations/index.js';
import { EVENT_TYPES } from '../webhooks/event-types.js';
import { bool, type Command, command, str } from './command.js';
import { details, table } from './output.js';

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
      `  --events E     comma-separated, or all (default): ${EVENT_TYPES.join(', ')}`,
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
    summary: "list a company's webhook endpoints (never their secrets)",
    usage: '--company ID',
    help: '',
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
        ['DISABLED BECAUSE', 'disabled_reason'],
      ]),
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
    summary: 'send a ping event to an endpoint and show how it answered',
    usage: 'ID',
    help: 'This command sends the ping itself at once (also when no server runs), signed like every event; it is never retried.',
    options: {},
    positional: 'ID',
    operation: 'webhooks.test',
    args: (_v, id) => ({ id }),
    text: (result) => `Ping ${result.event_id}: ${result.status}\n${details(result)}`,
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
    summary: 'deliver an event again to the enabled endpoints that had it',
    usage: 'EVENT_ID',
    help: 'EVENT_ID is the evt_... id shown by webhooks deliveries. It keeps its id (receivers dedupe by webhook-id).',
    options: {},
    positional: 'EVENT_ID',
    operation: 'webhooks.resend',
    args: (_v, event) => ({ event }),
    text: (result) =>
      `Event ${result.event_id} queued again for endpoint(s) ${result.deliveries
        .map((delivery) => delivery.endpoint_id)
        .join(', ')}.`,
  }),
];
