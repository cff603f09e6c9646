// `bin/invoicing keys roll|usage`, `requests list|show` and `usage`: rolling a key, and what support reads
// of the request log (src/operations/requests.ts), in the shape of src/cli/command.ts. Joined to
// the command table of src/cli/commands.ts; nothing here touches the database.
import type { OperationResult } from '../operations/index.js';
import { type Command, command, str, type TextContext } from './command.js';
import { details, table } from './output.js';
import { curlLine } from './urls.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the rolled key really does now: expired at once (`--grace 0h`), or works until its end. */
function previousKeyLine(previous: { id: number; expires_at: string }): string {
  if (Date.parse(previous.expires_at) <= Date.now()) {
    return `Key ${previous.id} expired now (no grace): it answers 401 api_key_expired on every server.`;
  }
  return `Key ${previous.id} keeps working until ${previous.expires_at} (the end of its grace, or its own expiry if sooner); then it answers 401 api_key_expired.`;
}

function rolledText(key: OperationResult<'keys.roll'>, context: TextContext): string {
  // The new key's real validity, from its expiry: as long as the old key's was when issued.
  const days = Math.round((Date.parse(key.expires_at) - Date.now()) / DAY_MS);
  return [
    `API key ${key.previous_key.id} rolled: new ${key.mode} API key ${key.id} for company ${key.company_id}, valid ${days} ${days === 1 ? 'day' : 'days'} (as long as key ${key.previous_key.id} was when issued).`,
    `  key:        ${key.key}`,
    `  scopes:     ${key.scopes.join(', ')}`,
    `  expires at: ${key.expires_at}`,
    '',
    previousKeyLine(key.previous_key),
    'The new key is shown only this once and cannot be recovered: store it now, and give it to the partner.',
    `Try it: ${curlLine(key.key, context.apiBaseUrl)}`,
  ].join('\n');
}

function shownText(shown: OperationResult<'requests.show'>): string {
  const { request, record, events } = shown;
  const lines = [
    `Request ${request.request_id} of company ${request.company_id}${request.company_name ? ` (${request.company_name})` : ''}:`,
    details(request, ['request_id', 'company_id', 'company_name']),
    '',
  ];
  if (record) {
    lines.push('Idempotency record:', details(record), '');
  } else {
    lines.push('Idempotency record: none (not a write, refused before it ran, or kept 24 hours only)', '');
  }
  if (events.length === 0) lines.push('Events caused: none');
  else lines.push('Events caused:');
  for (const event of events) {
    lines.push(`  ${event.event_id} ${event.type} at ${event.created_at}`);
    if (event.deliveries.length === 0) lines.push('    no endpoint subscribed');
    for (const delivery of event.deliveries) {
      lines.push(
        `    delivery ${delivery.delivery_id} to endpoint ${delivery.endpoint_id}: ${delivery.status}`,
      );
      for (const attempt of delivery.attempts) {
        const answer = attempt.status_code ?? attempt.error ?? 'no answer';
        lines.push(
          `      attempt ${attempt.attempt} at ${attempt.at}: ${attempt.succeeded ? 'ok' : 'failed'} (${answer}, ${attempt.latency_ms} ms)`,
        );
      }
    }
  }
  return lines.join('\n');
}

function usageText(usage: OperationResult<'usage'>): string {
  const { totals } = usage;
  const who =
    usage.api_key_id === null
      ? `company ${usage.company_id}`
      : `API key ${usage.api_key_id} of company ${usage.company_id}`;
  const range = (p: typeof totals.p50) => (p ? `${p.low_ms}–${p.high_ms ?? '∞'} ms` : '-');
  return [
    `Usage of ${who}, ${usage.from} to ${usage.to} (${usage.window}, a row per ${usage.step}):`,
    table(usage.series, [
      ['FROM', 'from'],
      ['REQUESTS', 'requests'],
      ['2XX', 'status_2xx'],
      ['3XX', 'status_3xx'],
      ['4XX', 'status_4xx'],
      ['5XX', 'status_5xx'],
      ['429', 'rate_limited'],
      ['WRITES', 'writes'],
      ['DEPRECATED', 'deprecated'],
      ['P50 MS', 'p50_ms'],
      ['P99 MS', 'p99_ms'],
    ]),
    `  total: ${totals.requests} requests (${totals.status_2xx} 2xx, ${totals.status_3xx} 3xx, ${totals.status_4xx} 4xx, ${totals.status_5xx} 5xx), ${totals.rate_limited} answered 429, ${totals.writes} writes, ${totals.deprecated} deprecated uses`,
    `  latency: p50 ${range(totals.p50)}, p99 ${range(totals.p99)}`,
    `  top error codes: ${usage.error_codes.map((row) => `${row.code} ${row.requests}`).join(', ') || 'none'}`,
    `  deprecated items used: ${usage.deprecated_uses.map((row) => `${row.item} ${row.requests}`).join(', ') || 'none'}`,
  ].join('\n');
}

/** `keys roll` and `keys usage`: listed after `keys revoke`. */
export const KEY_COMMANDS: readonly Command[] = [
  command({
    name: 'keys roll',
    summary: 'replace an API key: a new key (shown once), the old one working until the grace ends',
    usage: 'KEY_ID [--grace 24h]',
    help: [
      '  --grace G   how long the old key keeps working: 30m, 24h (default), 7d; at most 30d; 0h ends it now',
      '',
      'The new key has the company, mode and scopes of the old one, and is valid as long as the old one',
      'was when issued. After the grace the old key answers 401 api_key_expired, on every server.',
    ].join('\n'),
    options: { grace: str },
    positional: 'KEY_ID',
    operation: 'keys.roll',
    args: (v, id) => ({ id, grace: v.grace }),
    text: rolledText,
  }),
  command({
    name: 'keys usage',
    summary: "an API key's requests and refusals per day, over the last 30 days (from the usage rollups)",
    usage: 'KEY_ID',
    help: 'Days in TZ_NAME, oldest first. REFUSED: answered 4xx (429 included); RATE LIMITED: answered 429.',
    options: {},
    positional: 'KEY_ID',
    operation: 'keys.usage',
    args: (_v, id) => ({ id }),
    text: (usage) =>
      [
        `API key ${usage.key_id} of company ${usage.company_id}, last 30 days:`,
        table(usage.days, [
          ['DAY', 'day'],
          ['REQUESTS', 'requests'],
          ['REFUSED', 'refused'],
          ['RATE LIMITED', 'rate_limited'],
        ]),
        `  total: ${usage.totals.requests} requests, ${usage.totals.refused} refused, ${usage.totals.rate_limited} rate limited`,
      ].join('\n'),
  }),
];

/** `requests list` and `requests show`. */
export const REQUEST_COMMANDS: readonly Command[] = [
  command({
    name: 'requests list',
    summary: "a company's API requests from the request log, newest first",
    usage:
      '--company ID [--key ID] [--status 429|4xx|5xx] [--since 1h] [--until T] [--route /customers/{id}] [--error CODE] [--limit N]',
    help: [
      '  --company ID   the company (required: the log is never read across companies)',
      '  --key ID       only the requests of this API key',
      '  --status S     one status (429) or a class (4xx, 5xx)',
      '  --since T      a day YYYY-MM-DD (midnight in TZ_NAME), a moment 2026-11-22T09:30:00+02:00,',
      '                 or a time ago: 30m, 1h, 2d',
      '  --until T      only requests that arrived before T (the same forms): the next page',
      '  --route R      one route, as the API reference writes it: /customers/{id}',
      '  --error CODE   only answers with this error code (validation_failed, rate_limited...)',
      '  --limit N      at most N requests (default 50, at most 1000)',
      '',
      'Requests with a known key are kept 30 days; the last second may not be written yet.',
    ].join('\n'),
    options: {
      company: str,
      key: str,
      status: str,
      since: str,
      until: str,
      route: str,
      error: str,
      limit: str,
    },
    required: ['company'],
    operation: 'requests.list',
    args: (v) => ({
      company: v.company,
      key: v.key,
      status: v.status,
      since: v.since,
      until: v.until,
      route: v.route,
      error: v.error,
      limit: v.limit,
    }),
    text: (result) =>
      table(result.requests, [
        ['AT', 'at'],
        ['REQUEST', 'request_id'],
        ['KEY', 'api_key_id'],
        ['METHOD', 'method'],
        ['ROUTE', 'route'],
        ['STATUS', 'status'],
        ['ERROR', 'error_code'],
        ['MS', 'duration_ms'],
        ['IDEMPOTENCY-KEY', 'idempotency_key'],
      ]),
  }),
  command({
    name: 'requests show',
    summary: 'one API request by its X-Request-Id: what it created or replayed, the events it caused',
    usage: 'REQUEST_ID',
    help: "REQUEST_ID is the X-Request-Id the partner received (req_ and 24 hex digits); also request_id in errors. With tracing on, a trace id (32 hex digits, from the partner's traceparent) shows the first request of that trace.",
    options: {},
    positional: 'REQUEST_ID',
    operation: 'requests.show',
    args: (_v, requestId) => ({ request_id: requestId }),
    text: shownText,
  }),
  command({
    name: 'usage',
    summary: "a company's (or one key's) API usage over 24 hours, 7 or 30 days, from the hourly rollups",
    usage: '--company ID [--key ID] [--window 24h|7d|30d]',
    help: [
      '  --company ID   the company',
      '  --key ID       only this API key of the company',
      '  --window W     24h (default; a point per hour), 7d (per 6 hours) or 30d (per day)',
      '',
      'Requests by status class, 429s, writes (POST, PUT), deprecated uses, the p50 and p99 latency',
      '(the upper bound of the histogram bucket holding them) and the top error codes.',
    ].join('\n'),
    options: { company: str, key: str, window: str },
    required: ['company'],
    operation: 'usage',
    args: (v) => ({ company: v.company, key: v.key, window: v.window }),
    text: usageText,
  }),
];
