// `bin/invoicing keys roll|usage`, `requests list|show` and `usage`: rolling a key, and what support reads
// of the request log (src/operations/requests/), in the shape of src/cli/command.ts. Joined to
// the command table of src/cli/commands.ts; nothing here touches the database.
import type { Translate } from '../i18n/catalog.js';
import type { OperationResult } from '../operations/index.js';
import { type Command, command, str, type TextContext } from './command.js';
import { details, table } from './output.js';
import { curlLine } from './urls.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The secret, scopes and expiry of a key just made (keys create, keys roll). */
export function keyLines(
  t: Translate,
  key: { key: string; scopes: readonly string[]; expires_at: string },
): string[] {
  return [
    `  ${t('cli.key.key_line', { key: key.key })}`,
    `  ${t('cli.key.scopes_line', { scopes: key.scopes.join(', ') })}`,
    `  ${t('cli.key.expires_line', { at: key.expires_at })}`,
  ];
}

/** What the rolled key really does now: expired at once (`--grace 0h`), or works until its end. */
function previousKeyLine(t: Translate, previous: { id: number; expires_at: string }): string {
  if (Date.parse(previous.expires_at) <= Date.now()) return t('cli.roll.expired_now', { id: previous.id });
  return t('cli.roll.works_until', { id: previous.id, at: previous.expires_at });
}

function rolledText(key: OperationResult<'keys.roll'>, { t, apiBaseUrl }: TextContext): string {
  // The new key's real validity, from its expiry: as long as the old key's was when issued.
  const days = Math.round((Date.parse(key.expires_at) - Date.now()) / DAY_MS);
  return [
    t('cli.roll.rolled', {
      old: key.previous_key.id,
      mode: key.mode,
      id: key.id,
      company: key.company_id,
      count: days,
    }),
    ...keyLines(t, key),
    '',
    previousKeyLine(t, key.previous_key),
    t('cli.roll.shown_once'),
    t('cli.try_it', { curl: curlLine(key.key, apiBaseUrl) }),
  ].join('\n');
}

function shownText(shown: OperationResult<'requests.show'>, { t }: TextContext): string {
  const { request, record, events } = shown;
  const lines = [
    request.company_name
      ? t('cli.request.headline_named', {
          id: request.request_id,
          company: request.company_id,
          name: request.company_name,
        })
      : t('cli.request.headline', { id: request.request_id, company: request.company_id }),
    details(request, ['request_id', 'company_id', 'company_name']),
    '',
  ];
  if (record) lines.push(t('cli.request.record'), details(record), '');
  else lines.push(t('cli.request.no_record'), '');
  lines.push(events.length === 0 ? t('cli.request.no_events') : t('cli.request.events'));
  for (const event of events) {
    lines.push(`  ${t('cli.request.event', { id: event.event_id, type: event.type, at: event.created_at })}`);
    if (event.deliveries.length === 0) lines.push(`    ${t('cli.request.no_endpoint')}`);
    for (const delivery of event.deliveries) {
      lines.push(
        `    ${t('cli.request.delivery', { id: delivery.delivery_id, endpoint: delivery.endpoint_id, status: delivery.status })}`,
      );
      for (const attempt of delivery.attempts) {
        const answer = attempt.status_code ?? attempt.error ?? t('cli.request.no_answer');
        lines.push(
          `      ${t(attempt.succeeded ? 'cli.request.attempt_ok' : 'cli.request.attempt_failed', {
            attempt: attempt.attempt,
            at: attempt.at,
            answer,
            ms: attempt.latency_ms,
          })}`,
        );
      }
    }
  }
  return lines.join('\n');
}

function usageText(usage: OperationResult<'usage'>, { t }: TextContext): string {
  const { totals } = usage;
  const who =
    usage.api_key_id === null
      ? t('cli.usage.of_company', { company: usage.company_id })
      : t('cli.usage.of_key', { key: usage.api_key_id, company: usage.company_id });
  const range = (p: typeof totals.p50) => (p ? `${p.low_ms}–${p.high_ms ?? '∞'} ms` : '-');
  const none = t('cli.none_inline');
  return [
    t('cli.usage.headline', { who, from: usage.from, to: usage.to, window: usage.window, step: usage.step }),
    table(t, usage.series, [
      ['col.from', 'from'],
      ['col.requests', 'requests'],
      ['col.2xx', 'status_2xx'],
      ['col.3xx', 'status_3xx'],
      ['col.4xx', 'status_4xx'],
      ['col.5xx', 'status_5xx'],
      ['col.429', 'rate_limited'],
      ['col.writes', 'writes'],
      ['col.deprecated', 'deprecated'],
      ['col.p50_ms', 'p50_ms'],
      ['col.p99_ms', 'p99_ms'],
    ]),
    `  ${t('cli.usage.total', {
      count: totals.requests,
      s2xx: totals.status_2xx,
      s3xx: totals.status_3xx,
      s4xx: totals.status_4xx,
      s5xx: totals.status_5xx,
      limited: totals.rate_limited,
      writes: totals.writes,
      deprecated: totals.deprecated,
    })}`,
    `  ${t('cli.usage.latency', { p50: range(totals.p50), p99: range(totals.p99) })}`,
    `  ${t('cli.usage.error_codes', { codes: usage.error_codes.map((row) => `${row.code} ${row.requests}`).join(', ') || none })}`,
    `  ${t('cli.usage.deprecated_items', { items: usage.deprecated_uses.map((row) => `${row.item} ${row.requests}`).join(', ') || none })}`,
  ].join('\n');
}

/** `keys roll` and `keys usage`: listed after `keys revoke`. */
export const KEY_COMMANDS: readonly Command[] = [
  command({
    name: 'keys roll',
    summary: 'cmd.keys roll',
    usage: 'KEY_ID [--grace 24h]',
    help: 'cmd.keys roll.help',
    options: { grace: str },
    positional: 'KEY_ID',
    operation: 'keys.roll',
    args: (v, id) => ({ id, grace: v.grace }),
    text: rolledText,
  }),
  command({
    name: 'keys usage',
    summary: 'cmd.keys usage',
    usage: 'KEY_ID',
    help: 'cmd.keys usage.help',
    options: {},
    positional: 'KEY_ID',
    operation: 'keys.usage',
    args: (_v, id) => ({ id }),
    text: (usage, { t }) =>
      [
        t('cli.key_usage.headline', { id: usage.key_id, company: usage.company_id }),
        table(t, usage.days, [
          ['col.day', 'day'],
          ['col.requests', 'requests'],
          ['col.refused', 'refused'],
          ['col.rate_limited', 'rate_limited'],
        ]),
        `  ${t('cli.key_usage.total', {
          count: usage.totals.requests,
          refused: usage.totals.refused,
          limited: usage.totals.rate_limited,
        })}`,
      ].join('\n'),
  }),
];

/** `requests list` and `requests show`. */
export const REQUEST_COMMANDS: readonly Command[] = [
  command({
    name: 'requests list',
    summary: 'cmd.requests list',
    usage:
      '--company ID [--key ID] [--status 429|4xx|5xx] [--since 1h] [--until T] [--route /customers/{id}] [--error CODE] [--limit N]',
    help: 'cmd.requests list.help',
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
    text: (result, { t }) =>
      table(t, result.requests, [
        ['col.at', 'at'],
        ['col.request', 'request_id'],
        ['col.key', 'api_key_id'],
        ['col.method', 'method'],
        ['col.route', 'route'],
        ['col.status', 'status'],
        ['col.error', 'error_code'],
        ['col.ms', 'duration_ms'],
        ['col.idempotency_key', 'idempotency_key'],
      ]),
  }),
  command({
    name: 'requests show',
    summary: 'cmd.requests show',
    usage: 'REQUEST_ID',
    help: 'cmd.requests show.help',
    options: {},
    positional: 'REQUEST_ID',
    operation: 'requests.show',
    args: (_v, requestId) => ({ request_id: requestId }),
    text: shownText,
  }),
  command({
    name: 'usage',
    summary: 'cmd.usage',
    usage: '--company ID [--key ID] [--window 24h|7d|30d]',
    help: 'cmd.usage.help',
    options: { company: str, key: str, window: str },
    required: ['company'],
    operation: 'usage',
    args: (v) => ({ company: v.company, key: v.key, window: v.window }),
    text: usageText,
  }),
];
