// Every environment variable the service reads, each declared once: its name, its schema (type,
// range, default), its meaning and where its value goes in the `Config`. The validation
// (src/config.ts, through env-schema), the typed values, the `Config` type and object, and the
// README's configuration table (`npm run config:table`; a test fails when the README's copy is
// stale) are all made from this table.
import { type Static, type TSchema, Type } from 'typebox';
import { type TextKey, translate } from './i18n/catalog.js';

/** What a value must be: the catalog's English (src/i18n/config-problems.ts) is the schema's description. */
type ValueKey = Extract<TextKey, `config.value.${string}`>;
const en = (key: ValueKey, params?: Record<string, string>) => translate('en', key, params);

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

/**
 * Every wait on the database is bounded (PostgreSQL; PGlite is one process and has no pool): the
 * `DB_*` variables below, `Config['databaseTimeouts']`.
 */
export const DEFAULT_DATABASE_TIMEOUTS = {
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 5_000,
  idleInTransactionTimeoutMs: 30_000,
  poolAcquireTimeoutMs: 5_000,
};

/** A load balancer polling /readyz every 2 s with `fall 2` has noticed within 5 s. */
export const DEFAULT_SHUTDOWN_DRAIN_MS = 5000;
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 15_000;

/** About 75 hours (more than 3 days): 1 first attempt and 10 retries. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h,14h,14h,20h';

const positive = (fallback: number) =>
  Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    default: fallback,
    description: en('config.value.positive'),
  });
const milliseconds = (extra: object) =>
  Type.Integer({ minimum: 0, maximum: 3_600_000, description: en('config.value.milliseconds'), ...extra });
const port = (extra: object) =>
  Type.Integer({ minimum: 0, maximum: 65535, description: en('config.value.port'), ...extra });
const text = (fallback: string, description: ValueKey) =>
  Type.String({ minLength: 1, default: fallback, description: en(description) });
const host = (fallback: string) =>
  Type.String({ pattern: '^[A-Za-z0-9._:%-]+$', default: fallback, description: en('config.value.host') });
// Typed as its values: a union built from an array is not a tuple, and TypeBox would type it never.
const oneOf = <T extends readonly string[]>(values: T, fallback: T[number]) =>
  Type.Unsafe<T[number]>(
    Type.Union(
      values.map((value) => Type.Literal(value)),
      { default: fallback, description: en('config.value.one_of', { values: values.join(', ') }) },
    ),
  );

/**
 * Where a value goes in the `Config`: a field (`port`) or a field of a section (`rateLimits.keyPerDay`).
 * The field's value is the variable's, or what src/config.ts's reader of that place makes of the
 * values (e.g. `docsPort`: null for `off`).
 */
type Place = string;

interface Variable<Schema extends TSchema = TSchema> {
  /** What a value must be; its `default` is the value when the variable is unset or empty. */
  schema: Schema;
  /** Its place in the `Config`; several when one variable makes several fields. */
  to: Place | readonly Place[];
  /** The README's "Meaning" cell. */
  meaning: string;
  /** The README's "Default" cell when it is not simply the schema's default (or "—" for none). */
  shown?: string;
  /** Its value is or may carry a secret (a password in a URL, a key): never repeated in a message. */
  secret?: true;
}

function declare<const T extends Record<string, Variable>>(variables: T): T {
  return variables;
}

/** The variables, in the order of the README's table. */
export const VARIABLES = declare({
  PORT: {
    to: 'port',
    schema: port({ default: 3000 }),
    meaning: 'port of the API',
  },
  HOST: {
    to: 'host',
    schema: host('127.0.0.1'),
    meaning: 'address to listen on (`0.0.0.0` to accept other hosts)',
  },
  DATABASE_URL: {
    secret: true,
    to: 'databaseUrl',
    schema: Type.Optional(
      Type.String({ pattern: '^postgres(ql)?://', description: en('config.value.postgres_url') }),
    ),
    meaning: 'PostgreSQL (`postgres://...`); without it the embedded PGlite in `DATA_DIR`',
  },
  DATA_DIR: {
    to: 'dataDir',
    schema: text('./data', 'config.value.directory'),
    meaning:
      "directory of the embedded database, its lock file and the admin socket; kept private to the service's account (0700, files 0600, loose modes fixed on start)",
  },
  REDIS_URL: {
    secret: true,
    to: 'redisUrl',
    schema: Type.Optional(Type.String({ pattern: '^rediss?://', description: en('config.value.redis_url') })),
    meaning: 'Redis for rate limits shared by several instances; without it, in memory',
  },
  REDIS_KEY_PREFIX: {
    to: 'redisKeyPrefix',
    schema: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9._:-]{1,100}$',
        description: en('config.value.prefix'),
      }),
    ),
    shown: '`partner-api:<installation id>:rl`',
    meaning:
      "namespace of the rate-limit counters in Redis; by default one of this installation's own (a random id its database holds), so installations sharing one Redis never share counters",
  },
  DOCS_URL: {
    to: 'docsUrl',
    schema: Type.Optional(Type.String({ pattern: '^https?://', description: en('config.value.http_url') })),
    shown: 'the local docs server, `http://127.0.0.1:3001`',
    meaning: 'base of `doc_url` in errors (`{DOCS_URL}/errors#<code>`)',
  },
  DOCS_PORT: {
    to: 'docsPort',
    schema: Type.String({
      pattern: '^(off|[1-9][0-9]{0,4})$',
      default: '3001',
      description: en('config.value.port_from_1_or_off'),
    }),
    meaning: "port of the docs server that `serve` starts (never the API's port); `off`: none",
  },
  CONSOLE_PORT: {
    to: 'console.port',
    schema: Type.String({
      pattern: '^(off|0|[1-9][0-9]{0,4})$',
      default: '3002',
      description: en('config.value.port_or_off'),
    }),
    meaning:
      "port of the support console that `serve` starts (never the API's port); `off`: none; `0`: any free port",
  },
  CONSOLE_HOST: {
    to: 'console.host',
    schema: host('127.0.0.1'),
    meaning:
      'address of the support console; put it behind a TLS proxy (`CONSOLE_URL`) to reach it from other hosts',
  },
  CONSOLE_URL: {
    to: ['console.url', 'console.urlConfigured'],
    schema: Type.Optional(Type.String({ pattern: '^https?://', description: en('config.value.http_url') })),
    shown: 'the local console, `http://127.0.0.1:3002`',
    meaning:
      "the console's public address behind a proxy: its links (setup links), the `Origin` its forms must come from; `https`: `Secure` `__Host-` cookies",
  },
  CONSOLE_SECRET_KEY: {
    secret: true,
    to: 'console.secretKey',
    schema: Type.Optional(
      Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: en('config.value.hex_key') }),
    ),
    shown:
      'with `NODE_ENV=production`: required for the console; otherwise a generated key kept in the database',
    meaning:
      "key (AES-256-GCM) of the staff's TOTP secrets at rest, e.g. `openssl rand -hex 32`; keep it outside the database",
  },
  TZ_NAME: {
    to: 'timeZone',
    schema: text('Africa/Maputo', 'config.value.time_zone'),
    meaning: 'time zone of timestamps in responses (`+02:00`) and of bare dates in filters',
  },
  LOG_LEVEL: {
    to: 'logLevel',
    schema: oneOf(LOG_LEVELS, 'info'),
    meaning: 'pino log level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  },
  LOG_FORMAT: {
    to: 'logFormat',
    schema: oneOf(LOG_FORMATS, 'auto'),
    meaning:
      '`json` (one JSON line per entry), `pretty` (short human lines), or `auto`: pretty on a terminal, JSON otherwise',
  },
  TRUST_PROXY: {
    to: 'trustProxy',
    schema: Type.Optional(Type.String({ description: en('config.value.trust_proxy') })),
    shown: 'off',
    meaning: '`true`, a hop count, or addresses/CIDRs of proxies whose `X-Forwarded-For` is believed',
  },
  BODY_LIMIT_BYTES: {
    to: 'bodyLimit',
    schema: positive(1024 * 1024),
    meaning: 'largest request body; larger is `422 validation_failed`',
  },
  IDEMPOTENCY_LOCK_TIMEOUT_SECONDS: {
    to: 'idempotencyLockTimeoutSeconds',
    schema: positive(60),
    meaning: 'after this, an in-flight request whose process died is taken over',
  },
  RATE_LIMIT_KEY_PER_MINUTE: {
    to: 'rateLimits.keyPerMinute',
    schema: positive(60),
    meaning: 'requests a minute per key',
  },
  RATE_LIMIT_KEY_WRITES_PER_MINUTE: {
    to: 'rateLimits.keyWritesPerMinute',
    schema: positive(10),
    meaning: 'POST/PUT a minute per key',
  },
  RATE_LIMIT_KEY_PER_DAY: {
    to: 'rateLimits.keyPerDay',
    schema: positive(5000),
    meaning: 'requests a day per key',
  },
  RATE_LIMIT_COMPANY_PER_MINUTE: {
    to: 'rateLimits.companyPerMinute',
    schema: positive(120),
    meaning: 'requests a minute per company, all keys together',
  },
  RATE_LIMIT_IP_PER_MINUTE: {
    to: 'rateLimits.ipPerMinute',
    schema: positive(30),
    meaning: 'requests a minute per client IP without a valid key',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    to: 'webhooks.retrySchedule',
    schema: text(DEFAULT_WEBHOOK_RETRY_SCHEDULE, 'config.value.durations'),
    meaning: 'delays before each retry of a failed webhook delivery (over 3 days)',
  },
  WEBHOOK_ALLOW_HTTP: {
    to: 'webhooks.allowHttp',
    schema: oneOf(['true', 'false', '1', '0'] as const, 'false'),
    meaning: 'webhook endpoints may use plain `http` to loopback addresses (development)',
  },
  WEBHOOK_ALLOW_PRIVATE: {
    to: 'webhooks.allowPrivate',
    schema: oneOf(['true', 'false', '1', '0'] as const, 'false'),
    meaning: 'webhook endpoints may be on private, link-local and loopback addresses',
  },
  OPS_PORT: {
    to: 'opsPort',
    schema: Type.Optional(port({})),
    meaning:
      'port of the monitoring server (`/healthz`, `/readyz`, `/metrics`); without it, none. `0`: any free port',
  },
  OPS_HOST: {
    to: 'opsHost',
    schema: host('127.0.0.1'),
    meaning:
      'address of the monitoring server; keep it private (see [Running in production](#running-in-production))',
  },
  DB_STATEMENT_TIMEOUT_MS: {
    to: 'databaseTimeouts.statementTimeoutMs',
    schema: positive(DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs),
    meaning: 'PostgreSQL `statement_timeout`: longest one statement may run',
  },
  DB_LOCK_TIMEOUT_MS: {
    to: 'databaseTimeouts.lockTimeoutMs',
    schema: positive(DEFAULT_DATABASE_TIMEOUTS.lockTimeoutMs),
    meaning: 'PostgreSQL `lock_timeout`: longest a statement waits for a lock',
  },
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: {
    to: 'databaseTimeouts.idleInTransactionTimeoutMs',
    schema: positive(DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs),
    meaning:
      'PostgreSQL `idle_in_transaction_session_timeout`: the server ends a transaction whose client went quiet',
  },
  DB_POOL_ACQUIRE_TIMEOUT_MS: {
    to: 'databaseTimeouts.poolAcquireTimeoutMs',
    schema: positive(DEFAULT_DATABASE_TIMEOUTS.poolAcquireTimeoutMs),
    meaning: 'longest a request waits for a free connection of the pool',
  },
  SHUTDOWN_DRAIN_MS: {
    to: 'shutdown.drainMs',
    schema: Type.Optional(milliseconds({})),
    shown: '`5000` with `OPS_PORT`, else `0`',
    meaning:
      'after `SIGTERM`/`SIGINT`, how long the API keeps serving (every answer with `Connection: close`) while `/readyz` already says 503, so that a load balancer stops sending first',
  },
  SHUTDOWN_TIMEOUT_MS: {
    to: 'shutdown.timeoutMs',
    schema: milliseconds({ default: DEFAULT_SHUTDOWN_TIMEOUT_MS }),
    meaning:
      'after the drain, longest the close may take (requests in flight, webhook attempts, pools) before the process exits anyway, with status 1',
  },
  KEY_CACHE_TTL_MS: {
    to: 'keyCacheTtlMs',
    schema: positive(1000),
    meaning:
      'a testing knob: longest an instance believes an API key it remembers without asking the database again. Changes reach every instance through their notifications and acknowledgements anyway (see Storage); a rehearsal sets it high so that only they can turn a key away',
  },
  REQUEST_LOG: {
    to: 'requestLog',
    schema: oneOf(['on', 'off'] as const, 'on'),
    meaning:
      '`off`: keep no record of API requests (`requests list`, `requests show` and `keys usage` then show only what was kept before; those records are still deleted after 30 days)',
  },
});

type Schemas = { [Name in keyof typeof VARIABLES]: (typeof VARIABLES)[Name]['schema'] };

function schemasOf(): Schemas {
  const schemas: Record<string, TSchema> = {};
  for (const [name, variable] of Object.entries(VARIABLES)) schemas[name] = variable.schema;
  return schemas as Schemas;
}

/** The one schema env-schema applies. */
export const ENV_SCHEMA = Type.Object(schemasOf());
export type EnvValues = Static<typeof ENV_SCHEMA>;
export const ENV_NAMES = Object.keys(VARIABLES) as (keyof EnvValues)[];
/** The variables whose values a message never repeats. */
export const SECRET_NAMES: readonly string[] = Object.entries(VARIABLES).flatMap(
  ([name, variable]: [string, Variable]) => (variable.secret ? [name] : []),
);

type Variables = typeof VARIABLES;
type PlacesOf<Name extends keyof Variables> = Variables[Name]['to'] extends readonly (infer P)[]
  ? P
  : Variables[Name]['to'];
/** Every place of the `Config`, as declared above. */
export type ConfigPlace = { [Name in keyof Variables]: PlacesOf<Name> }[keyof Variables];
/** The variable whose value a place takes. */
type VariableAt<P extends ConfigPlace> = {
  [Name in keyof Variables]: P extends PlacesOf<Name> ? Name : never;
}[keyof Variables];

/**
 * The `Config` of these declarations: each place's value is the variable's (`EnvValues`), or what
 * its reader returns (`Readers`, given by src/config.ts for the places that are not simply a value).
 */
export type ConfigOf<Readers extends { [P in ConfigPlace]?: (values: EnvValues) => unknown }> = {
  [P in ConfigPlace as P extends `${string}.${string}` ? never : P]: ValueAt<P, Readers>;
} & {
  [Section in SectionOf<ConfigPlace>]: {
    [P in ConfigPlace as P extends `${Section}.${infer Field}` ? Field : never]: ValueAt<P, Readers>;
  };
};
type SectionOf<P> = P extends `${infer Section}.${string}` ? Section : never;
type ValueAt<P extends ConfigPlace, Readers> = P extends keyof Readers
  ? Readers[P] extends (values: EnvValues) => infer Value
    ? Value
    : never
  : EnvValues[VariableAt<P>];

/** Each variable's places, in the order of the table. */
export function placesOf(name: keyof Variables): readonly ConfigPlace[] {
  const { to } = VARIABLES[name] as Variable;
  return (typeof to === 'string' ? [to] : to) as readonly ConfigPlace[];
}

/** The README's configuration table, made from the declarations above. */
export function configurationTable(): string {
  const rows = Object.entries(VARIABLES).map(([name, variable]: [string, Variable]) => {
    const fallback = (variable.schema as { default?: unknown }).default;
    const shown = variable.shown ?? (fallback === undefined ? '—' : `\`${String(fallback)}\``);
    return `| \`${name}\` | ${shown} | ${variable.meaning} |`;
  });
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
