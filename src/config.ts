// Configuration comes from the environment once, at start, and is validated there:
// a bad value stops the process with a clear message instead of failing later.

export interface RateLimitConfig {
  keyPerMinute: number;
  keyWritesPerMinute: number;
  keyPerDay: number;
  companyPerMinute: number;
  ipPerMinute: number;
}

/** Every wait on the database is bounded (PostgreSQL; PGlite is one process and has no pool). */
export interface DatabaseTimeouts {
  /** `statement_timeout`: longest a single statement may run. */
  statementTimeoutMs: number;
  /** `lock_timeout`: longest a statement waits for a lock (a row another transaction holds). */
  lockTimeoutMs: number;
  /** `idle_in_transaction_session_timeout`: the server ends a transaction whose client went quiet. */
  idleInTransactionTimeoutMs: number;
  /** Longest a request waits for a free connection of the pool (then a 503). */
  poolAcquireTimeoutMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 5_000,
  idleInTransactionTimeoutMs: 30_000,
  poolAcquireTimeoutMs: 5_000,
};

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
  databaseTimeouts: DatabaseTimeouts;
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
    databaseTimeouts: {
      statementTimeoutMs: positiveInt(
        env,
        'DB_STATEMENT_TIMEOUT_MS',
        DEFAULT_DATABASE_TIMEOUTS.statementTimeoutMs,
      ),
      lockTimeoutMs: positiveInt(env, 'DB_LOCK_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.lockTimeoutMs),
      idleInTransactionTimeoutMs: positiveInt(
        env,
        'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
        DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs,
      ),
      poolAcquireTimeoutMs: positiveInt(
        env,
        'DB_POOL_ACQUIRE_TIMEOUT_MS',
        DEFAULT_DATABASE_TIMEOUTS.poolAcquireTimeoutMs,
      ),
    },
  };
}
