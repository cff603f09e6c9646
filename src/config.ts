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
  docsUrl: string;
  timeZone: string;
  logLevel: string;
  /** Fastify `trustProxy`: false, true, a hop count, or a comma-separated list of addresses/CIDRs. */
  trustProxy: boolean | number | string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Seconds after which an in-flight idempotency record whose holder died may be taken over. */
  idempotencyLockTimeoutSeconds: number;
  rateLimits: RateLimitConfig;
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  /** Delays before each retry of a failed delivery, in milliseconds (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: number[];
  /** WEBHOOK_ALLOW_HTTP: plain http to loopback addresses (a receiver on this machine). */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: endpoints on private, link-local and loopback addresses. */
  allowPrivate: boolean;
}

/** About 75 hours (more than 3 days): 1 first attempt and 10 retries. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h,14h,14h,20h';

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

function booleanFlag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "5s,5m,30m,2h" -> milliseconds; every entry a whole number with a unit (ms, s, m, h, d). */
export function parseRetrySchedule(raw: string, name = 'WEBHOOK_RETRY_SCHEDULE'): number[] {
  const entries = raw.split(',').map((entry) => entry.trim());
  return entries.map((entry) => {
    const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(entry);
    const value = match ? Number(match[1]) * (DURATION_UNITS[match[2] as string] as number) : 0;
    if (!match || value < 1 || value > 30 * DURATION_UNITS.d!) {
      throw new ConfigError(
        `${name} must be a comma-separated list of durations such as 5s,5m,2h (units ms, s, m, h, d; each at most 30d), got "${raw}"`,
      );
    }
    return value;
  });
}

export function loadConfig(env: Env = process.env): Config {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${env.PORT}"`);
  }
  const docsUrl =
    optionalUrl(env, 'DOCS_URL', ['http:', 'https:']) ?? 'https://docs.invoicing.example/partner-api/v1';
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl: optionalUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: env.DATA_DIR || './data',
    redisUrl: optionalUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    docsUrl: docsUrl.replace(/\/+$/, ''),
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
    webhooks: {
      retrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE || DEFAULT_WEBHOOK_RETRY_SCHEDULE),
      allowHttp: booleanFlag(env, 'WEBHOOK_ALLOW_HTTP'),
      allowPrivate: booleanFlag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    },
  };
}
