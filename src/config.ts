// Configuration comes from the environment once, at start, and is validated there:
// a bad value stops the process with a clear message instead of failing later.

export interface RateLimitConfig {
  keyPerMinute: number;
  keyWritesPerMinute: number;
  keyPerDay: number;
  companyPerMinute: number;
  ipPerMinute: number;
}

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; when absent the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  /** Base of `doc_url` in errors; by default the local docs server below. */
  docsUrl: string;
  /** Port of the docs server (`serve` only; its own port, never the API's); null: no docs server. */
  docsPort: number | null;
  timeZone: string;
  logLevel: string;
  /** Fastify `trustProxy`: false, true, a hop count, or a comma-separated list of addresses/CIDRs. */
  trustProxy: boolean | number | string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Seconds after which an in-flight idempotency record whose holder died may be taken over. */
  idempotencyLockTimeoutSeconds: number;
  rateLimits: RateLimitConfig;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  }
  return Number(raw);
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^[0-9]+$/.test(raw)) return Number(raw);
  return raw;
}

function validTimeZone(name: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name;
  } catch {
    throw new ConfigError(`TZ_NAME is not a known time zone: "${name}"`);
  }
}

function optionalUrl(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use one of ${protocols.join(', ')}`);
  }
  return raw;
}

export const DEFAULT_DOCS_PORT = 3001;

function docsPort(raw: string | undefined): number | null {
  if (raw === undefined || raw === '') return DEFAULT_DOCS_PORT;
  if (raw === 'off') return null;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    throw new ConfigError(`DOCS_PORT must be a port between 1 and 65535 or "off", got "${raw}"`);
  }
  return Number(raw);
}

/** The address people use to reach a server listening on `host` (a wildcard: the loopback). */
function localAddress(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

export function loadConfig(env: Env = process.env): Config {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${env.PORT}"`);
  }
  const host = env.HOST || '127.0.0.1';
  const docs = docsPort(env.DOCS_PORT);
  // Without DOCS_URL, errors point at this service's own docs server, so every doc_url opens.
  const docsUrl =
    optionalUrl(env, 'DOCS_URL', ['http:', 'https:']) ?? localAddress(host, docs ?? DEFAULT_DOCS_PORT);
  return {
    port,
    host,
    databaseUrl: optionalUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: env.DATA_DIR || './data',
    redisUrl: optionalUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    docsUrl: docsUrl.replace(/\/+$/, ''),
    docsPort: docs,
    timeZone: validTimeZone(env.TZ_NAME || 'Africa/Maputo'),
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: trustProxy(env.TRUST_PROXY),
    bodyLimit: positiveInt(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    idempotencyLockTimeoutSeconds: positiveInt(env, 'IDEMPOTENCY_LOCK_TIMEOUT_SECONDS', 60),
    rateLimits: {
      keyPerMinute: positiveInt(env, 'RATE_LIMIT_KEY_PER_MINUTE', 60),
      keyWritesPerMinute: positiveInt(env, 'RATE_LIMIT_KEY_WRITES_PER_MINUTE', 10),
      keyPerDay: positiveInt(env, 'RATE_LIMIT_KEY_PER_DAY', 5000),
      companyPerMinute: positiveInt(env, 'RATE_LIMIT_COMPANY_PER_MINUTE', 120),
      ipPerMinute: positiveInt(env, 'RATE_LIMIT_IP_PER_MINUTE', 30),
    },
  };
}
