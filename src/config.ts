// Configuration comes from the environment once, at start, and is validated there: a bad value
// stops the process with a clear message instead of failing later. Every variable is declared once
// in src/config-variables.ts (schema, default, meaning; env-schema applies the schemas); a few
// checks a schema cannot express (a known time zone, proxy addresses, URLs) follow. Every problem is reported at
// once, each a text of the catalog ("NAME tem de ser ...", "NAME must be ..."; src/i18n/config-problems.ts)
// told in the operator's language. An empty variable counts as unset.
import { isIP } from 'node:net';
import { envSchema } from 'env-schema';
import { ConfigError } from './config-error.js';
import {
  type ConfigOf,
  type ConfigPlace,
  DEFAULT_SHUTDOWN_DRAIN_MS,
  ENV_NAMES,
  ENV_SCHEMA,
  type EnvValues,
  placesOf,
  SECRET_NAMES,
} from './config-variables.js';
import type { TextKey } from './i18n/catalog.js';
import { configProblemsEn } from './i18n/config-problems.js';
import type { Message } from './i18n/message.js';

/** The configuration: its shape is the declarations' (src/config-variables.ts), its values checked. */
export type Config = Flat<ConfigOf<typeof READERS>>;
type Flat<T> = { [Key in keyof T]: T[Key] };

export type RateLimitConfig = Config['rateLimits'];
/** Every wait on the database is bounded (PostgreSQL; PGlite is one process and has no pool). */
export type DatabaseTimeouts = Config['databaseTimeouts'];
/** How `serve` stops on SIGTERM or SIGINT (src/cli/shutdown.ts). */
export type ShutdownConfig = Config['shutdown'];
export type WebhookConfig = Config['webhooks'];
/** The support console (src/console/): its own port, never the API's. */
export type ConsoleConfig = Config['console'];

export { ConfigError } from './config-error.js';
export {
  DEFAULT_DATABASE_TIMEOUTS,
  DEFAULT_WEBHOOK_RETRY_SCHEDULE,
  ENV_NAMES,
} from './config-variables.js';

type Env = Record<string, string | undefined>;

interface SchemaProblem {
  instancePath: string;
  params: { missingProperty?: string };
}

/** The catalog's text of what a value must be: the one whose English is the schema's description. */
export function valueText(description: string): Message | string {
  const choices = /^one of (.+)$/.exec(description);
  if (choices) return { key: 'config.value.one_of', params: { values: choices[1] as string } };
  const key = VALUE_KEYS.get(description);
  return key ? { key } : description;
}

const VALUE_KEYS = new Map(
  Object.entries(configProblemsEn).flatMap(([key, text]) =>
    key.startsWith('config.value.') ? [[text as string, key as TextKey] as const] : [],
  ),
);

function described(name: string): Message | string {
  const property = (ENV_SCHEMA.properties as Record<string, { description?: string }>)[name];
  return valueText(property?.description ?? 'valid');
}

function problem(name: string, raw: string | undefined): Message {
  const what = described(name);
  // A secret is never echoed, also when wrong: a wrong one may be nearly right.
  return SECRET_NAMES.includes(name)
    ? { key: 'config.must_be_hidden', params: { name, what } }
    : { key: 'config.must_be', params: { name, what, value: String(raw) } };
}

/** The schema's verdict: the values (defaults filled in, numbers converted), or the problems. */
function applySchema(env: Env): { values: EnvValues; problems: Message[] } {
  const data: Record<string, string> = {};
  const bad = new Set<string>();
  for (const name of ENV_NAMES) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    data[name] = raw;
    // Whole numbers are written in digits: no "1e3", " 8080" or "0x50", which coercion would take.
    if (isInteger(name) && !/^[0-9]+$/.test(raw)) bad.add(name);
  }
  let values = {} as EnvValues;
  try {
    values = envSchema<EnvValues>({ schema: structuredClone(ENV_SCHEMA), data: { ...data }, env: false });
  } catch (error) {
    const errors = (error as { errors?: SchemaProblem[] }).errors;
    if (!errors) throw error;
    for (const e of errors) bad.add(e.instancePath.slice(1) || e.params.missingProperty || '');
  }
  const problems = ENV_NAMES.filter((name) => bad.has(name)).map((name) => problem(name, data[name]));
  return { values, problems };
}

function isInteger(name: string): boolean {
  return (ENV_SCHEMA.properties as Record<string, { type?: string }>)[name]?.type === 'integer';
}

function knownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function validUrl(raw: string): boolean {
  try {
    new URL(raw);
    return true;
  } catch {
    return false;
  }
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** A proxy address as Fastify (proxy-addr) takes it: an IP, an IP/prefix, or a named range. */
function proxyAddress(entry: string): boolean {
  if (PROXY_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (isIP(prefix) === family) return true; // a netmask
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function trustProxyOf(raw: string | undefined): boolean | number | string | null {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^[0-9]+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  return entries.every(proxyAddress) ? entries.join(',') : null;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "5s,5m,30m,2h" -> milliseconds; every entry a whole number with a unit (ms, s, m, h, d). */
export function parseRetrySchedule(raw: string, name = 'WEBHOOK_RETRY_SCHEDULE'): number[] {
  const entries = raw.split(',').map((entry) => entry.trim());
  return entries.map((entry) => {
    const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(entry);
    const value = match ? Number(match[1]) * (DURATION_UNITS[match[2] as string] as number) : 0;
    if (!match || value < 1 || value > 30 * DURATION_UNITS.d!) {
      const what: Message = { key: 'config.value.durations' };
      throw new ConfigError([{ key: 'config.must_be', params: { name, what, value: raw } }]);
    }
    return value;
  });
}

function retryScheduleOf(raw: string): number[] | null {
  try {
    return parseRetrySchedule(raw);
  } catch {
    return null;
  }
}

export const DEFAULT_DOCS_PORT = 3001;
export const DEFAULT_CONSOLE_PORT = 3002;

/** The address people use to reach a server listening on `host` (a wildcard: the loopback). */
function localAddress(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/**
 * The whole configuration, checked, from the environment it is given: read once, at the edge (the
 * command line, a script), and passed down; nothing below reads the environment itself.
 */
export function loadConfig(env: Env): Config {
  const { values, problems } = applySchema(env);
  if (problems.length === 0) {
    if (!knownTimeZone(values.TZ_NAME))
      problems.push({ key: 'config.time_zone', params: { value: values.TZ_NAME } });
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'DOCS_URL'] as const) {
      const raw = values[name];
      if (raw !== undefined && !validUrl(raw)) problems.push({ key: 'config.url', params: { name } });
    }
    if (retryScheduleOf(values.WEBHOOK_RETRY_SCHEDULE) === null)
      problems.push(problem('WEBHOOK_RETRY_SCHEDULE', values.WEBHOOK_RETRY_SCHEDULE));
    if (values.DOCS_PORT !== 'off' && Number(values.DOCS_PORT) > 65535)
      problems.push(problem('DOCS_PORT', values.DOCS_PORT));
    if (values.CONSOLE_URL !== undefined && !validUrl(values.CONSOLE_URL))
      problems.push({ key: 'config.url', params: { name: 'CONSOLE_URL' } });
    if (values.CONSOLE_PORT !== 'off' && Number(values.CONSOLE_PORT) > 65535)
      problems.push(problem('CONSOLE_PORT', values.CONSOLE_PORT));
    // The console has its own port: the API keeps its 14 routes, the docs their site.
    for (const [name, other] of [
      ['PORT', values.PORT],
      ['OPS_PORT', values.OPS_PORT],
      ['DOCS_PORT', values.DOCS_PORT === 'off' ? undefined : Number(values.DOCS_PORT)],
    ] as const) {
      const consolePort = values.CONSOLE_PORT === 'off' ? 0 : Number(values.CONSOLE_PORT);
      if (consolePort !== 0 && other !== undefined && other !== 0 && consolePort === other) {
        problems.push({ key: 'config.console_port', params: { name, port: other } });
      }
    }
    if (trustProxyOf(values.TRUST_PROXY) === null) problems.push(problem('TRUST_PROXY', values.TRUST_PROXY));
    if (values.OPS_PORT !== undefined && values.OPS_PORT !== 0 && values.OPS_PORT === values.PORT) {
      problems.push({ key: 'config.ops_port', params: { port: values.PORT } });
    }
    // The docs have their own port: on the API's, every doc_url would answer 404.
    for (const [name, other] of [
      ['PORT', values.PORT],
      ['OPS_PORT', values.OPS_PORT],
    ] as const) {
      if (
        values.DOCS_PORT !== 'off' &&
        other !== undefined &&
        other !== 0 &&
        Number(values.DOCS_PORT) === other
      ) {
        problems.push({ key: 'config.docs_port', params: { name, port: other } });
      }
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
  return configOf(values);
}

const portOrOff = (raw: string): number | null => (raw === 'off' ? null : Number(raw));
const flag = (raw: string): boolean => ['true', '1'].includes(raw);
const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');

/** The places of the `Config` that are not simply a variable's value: made from the values. */
const READERS = {
  // Without DOCS_URL, errors point at this service's own docs server, so every doc_url opens.
  docsUrl: (values: EnvValues): string =>
    withoutTrailingSlash(
      values.DOCS_URL ?? localAddress(values.HOST, portOrOff(values.DOCS_PORT) ?? DEFAULT_DOCS_PORT),
    ),
  /** null: no docs server (`serve` only; its own port, never the API's). */
  docsPort: (values: EnvValues) => portOrOff(values.DOCS_PORT),
  trustProxy: (values: EnvValues): boolean | number | string => trustProxyOf(values.TRUST_PROXY) ?? false,
  'webhooks.retrySchedule': (values: EnvValues) => retryScheduleOf(values.WEBHOOK_RETRY_SCHEDULE) ?? [],
  'webhooks.allowHttp': (values: EnvValues) => flag(values.WEBHOOK_ALLOW_HTTP),
  'webhooks.allowPrivate': (values: EnvValues) => flag(values.WEBHOOK_ALLOW_PRIVATE),
  // Only a load balancer that polls /readyz (the operations port) needs time to notice.
  'shutdown.drainMs': (values: EnvValues) =>
    values.SHUTDOWN_DRAIN_MS ?? (values.OPS_PORT === undefined ? 0 : DEFAULT_SHUTDOWN_DRAIN_MS),
  requestLog: (values: EnvValues) => values.REQUEST_LOG === 'on',
  /** null: no console (CONSOLE_PORT=off); 0: any free port. */
  'console.port': (values: EnvValues) => portOrOff(values.CONSOLE_PORT),
  /** Its public address (CONSOLE_URL), or the local one; links and the Origin check use it. */
  'console.url': (values: EnvValues): string =>
    withoutTrailingSlash(
      values.CONSOLE_URL ??
        localAddress(values.CONSOLE_HOST, portOrOff(values.CONSOLE_PORT) || DEFAULT_CONSOLE_PORT),
    ),
  /** Without CONSOLE_URL, the Origin may also be the address the browser used. */
  'console.urlConfigured': (values: EnvValues) => values.CONSOLE_URL !== undefined,
  /** 32 bytes in hex; undefined: a generated key (never in production). */
  'console.secretKey': (values: EnvValues) => values.CONSOLE_SECRET_KEY?.toLowerCase(),
} satisfies { [Place in ConfigPlace]?: (values: EnvValues) => unknown };

/** Every variable's value at its place (src/config-variables.ts), through its reader if it has one. */
function configOf(values: EnvValues): Config {
  const readers: Partial<Record<ConfigPlace, (values: EnvValues) => unknown>> = READERS;
  const config: Record<string, unknown> = {};
  for (const name of ENV_NAMES) {
    for (const place of placesOf(name)) {
      const reader = readers[place];
      const value = reader ? reader(values) : values[name];
      const [section, field] = place.split('.') as [string, string | undefined];
      if (field === undefined) {
        config[place] = value;
        continue;
      }
      const fields = (config[section] ?? {}) as Record<string, unknown>;
      fields[field] = value;
      config[section] = fields;
    }
  }
  return config as Config;
}
