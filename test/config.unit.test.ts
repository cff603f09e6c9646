// Every variable is declared once (src/config-variables.ts): the README's configuration table is
// made from those declarations and must be the current one, and a bad value of any variable stops
// the start with a message naming it.
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { readmeConfigurationTable } from '../scripts/lib/config-table.js';
import { type Config, ConfigError, ENV_NAMES, loadConfig, valueText } from '../src/config.js';
import {
  configurationTable,
  ENV_SCHEMA,
  type LOG_FORMATS,
  type LOG_LEVELS,
  placesOf,
} from '../src/config-variables.js';
import { translator, type UiLanguage } from '../src/i18n/catalog.js';
import { tell } from '../src/i18n/message.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** A value each variable must refuse (null: any non-empty text is a valid value). */
const BAD_VALUES: Record<string, string | null> = {
  PORT: '70000',
  HOST: 'my host',
  DATABASE_URL: 'mysql://user:pw@db/invoicing',
  DATA_DIR: null,
  REDIS_URL: 'memcached://cache:11211',
  REDIS_KEY_PREFIX: 'staging counters',
  DOCS_URL: 'ftp://docs.example',
  DOCS_PORT: '70000',
  CONSOLE_PORT: '70000',
  CONSOLE_HOST: 'a host',
  CONSOLE_URL: 'ftp://console.example',
  CONSOLE_SECRET_KEY: 'short',
  TZ_NAME: 'Africa/Atlantis',
  LOG_LEVEL: 'verbose',
  LOG_FORMAT: 'xml',
  TRUST_PROXY: '10.0.0.0/99',
  BODY_LIMIT_BYTES: '1mb',
  IDEMPOTENCY_LOCK_TIMEOUT_SECONDS: '0',
  RATE_LIMIT_KEY_PER_MINUTE: '-1',
  RATE_LIMIT_KEY_WRITES_PER_MINUTE: '2.5',
  RATE_LIMIT_KEY_PER_DAY: 'lots',
  RATE_LIMIT_COMPANY_PER_MINUTE: '1e3',
  RATE_LIMIT_IP_PER_MINUTE: 'thirty',
  OPS_PORT: '-1',
  OPS_HOST: 'not a host',
  WEBHOOK_RETRY_SCHEDULE: '5 seconds',
  DB_STATEMENT_TIMEOUT_MS: '0',
  DB_LOCK_TIMEOUT_MS: '5s',
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '-1',
  DB_POOL_ACQUIRE_TIMEOUT_MS: 'never',
  KEY_CACHE_TTL_MS: '0',
  WEBHOOK_ALLOW_HTTP: 'yes',
  WEBHOOK_ALLOW_PRIVATE: 'maybe',
  SHUTDOWN_DRAIN_MS: '5s',
  SHUTDOWN_TIMEOUT_MS: '-1',
  REQUEST_LOG: 'yes',
};

/** What the start says of `env`: in English (the error's message, the logs'), or told in `language`. */
function refusal(env: Record<string, string>, language?: UiLanguage): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    return language ? problems.map((problem) => tell(problem, translator(language))).join('; ') : message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('configuration', () => {
  it('the README holds the configuration table made from the declarations (npm run config:table)', () => {
    expect(readmeConfigurationTable(README)).toBe(configurationTable());
    expect(Object.keys(BAD_VALUES).sort()).toEqual([...ENV_NAMES].sort());
  });

  it('defaults: nothing set gives the documented values', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      timeZone: 'Africa/Maputo',
      logLevel: 'info',
      logFormat: 'auto',
      trustProxy: false,
      bodyLimit: 1048576,
      idempotencyLockTimeoutSeconds: 60,
      opsPort: undefined,
      opsHost: '127.0.0.1',
      rateLimits: {
        keyPerMinute: 60,
        keyWritesPerMinute: 10,
        keyPerDay: 5000,
        companyPerMinute: 120,
        ipPerMinute: 30,
      },
    });
    // An empty variable counts as unset.
    expect(loadConfig({ PORT: '', LOG_LEVEL: '' })).toMatchObject({ port: 3000, logLevel: 'info' });
  });

  it('keeps the request log unless the operator switches it off (REQUEST_LOG)', () => {
    expect(loadConfig({}).requestLog).toBe(true);
    expect(loadConfig({ REQUEST_LOG: 'on' }).requestLog).toBe(true);
    expect(loadConfig({ REQUEST_LOG: 'off' }).requestLog).toBe(false);
  });

  it('drains on shutdown only where something polls /readyz (OPS_PORT), unless told', () => {
    expect(loadConfig({}).shutdown).toEqual({ drainMs: 0, timeoutMs: 15000 });
    expect(loadConfig({ OPS_PORT: '9464' }).shutdown).toEqual({ drainMs: 5000, timeoutMs: 15000 });
    expect(loadConfig({ OPS_PORT: '9464', SHUTDOWN_DRAIN_MS: '0' }).shutdown.drainMs).toBe(0);
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '2500', SHUTDOWN_TIMEOUT_MS: '3000' }).shutdown).toEqual({
      drainMs: 2500,
      timeoutMs: 3000,
    });
  });

  it.each(Object.entries(BAD_VALUES).filter(([, bad]) => bad !== null))('refuses a bad %s', (name, bad) => {
    const message = refusal({ [name]: bad as string });
    expect(message).toMatch(new RegExp(`^${name} `));
    if (name.endsWith('_URL') && name !== 'DOCS_URL') {
      expect(message).not.toContain('pw@'); // a URL may hold a password: never echoed
    } else if (name === 'CONSOLE_SECRET_KEY') {
      expect(message).not.toContain(bad); // a wrong key may be nearly the right one: never echoed
    } else {
      expect(message).toContain(`"${bad}"`);
    }
  });

  it('says exactly what is wrong, every problem at once', () => {
    expect(refusal({ LOG_LEVEL: 'verbose' })).toBe(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    );
    expect(refusal({ PORT: 'abc', LOG_LEVEL: 'loud' })).toBe(
      'PORT must be an integer from 0 to 65535, got "abc"; LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    );
    expect(refusal({ PORT: '3000', OPS_PORT: '3000' })).toBe('OPS_PORT must differ from PORT, both are 3000');
  });

  it('issue 30: DOCS_PORT equal to PORT (or OPS_PORT) is refused, in Portuguese, instead of a docs server whose every doc_url is a 404', () => {
    expect(refusal({ PORT: '3001' }, 'pt')).toBe(
      'DOCS_PORT tem de ser diferente de PORT (ambos 3001): a documentação é servida na sua própria porta; escolha outra porta para DOCS_PORT, ou DOCS_PORT=off',
    );
    expect(refusal({ PORT: '8080', DOCS_PORT: '8080' }, 'pt')).toMatch(
      /^DOCS_PORT tem de ser diferente de PORT \(ambos 8080\)/,
    );
    expect(refusal({ OPS_PORT: '9100', DOCS_PORT: '9100' }, 'pt')).toMatch(
      /^DOCS_PORT tem de ser diferente de OPS_PORT/,
    );
    expect(loadConfig({ PORT: '3001', DOCS_PORT: 'off' }).docsPort).toBeNull();
    expect(loadConfig({ PORT: '0', DOCS_PORT: '3001' }).docsPort).toBe(3001);
  });

  it("the operator's language: every bad value is told in Portuguese by default (English with INVOICING_LANG=en), one language per message, and a value that may be a secret (a database or Redis URL, the console's key) is never repeated", () => {
    // Each variable's description has its Portuguese text in the catalog (none falls back to English).
    for (const [name, property] of Object.entries(
      ENV_SCHEMA.properties as Record<string, { description?: string }>,
    ))
      expect(typeof valueText(property.description ?? ''), name).toBe('object');
    for (const [name, bad] of Object.entries(BAD_VALUES)) {
      if (bad === null) continue;
      const [pt, en] = [refusal({ [name]: bad }, 'pt'), refusal({ [name]: bad }, 'en')];
      expect(pt, name).toMatch(new RegExp(`^${name} (tem de ser|não é) `));
      expect(pt, name).not.toMatch(/\b(must|got|is not|an|the)\b/);
      expect(en, name).toBe(refusal({ [name]: bad }));
      if (['DATABASE_URL', 'REDIS_URL', 'CONSOLE_SECRET_KEY'].includes(name))
        expect(pt + en, name).not.toContain(bad);
    }
    expect(refusal({ PORT: 'abc', LOG_LEVEL: 'loud' }, 'pt')).toBe(
      'PORT tem de ser um número inteiro de 0 a 65535; recebi "abc"; LOG_LEVEL tem de ser um de fatal, error, warn, info, debug, trace, silent; recebi "loud"',
    );
    expect(refusal({ PORT: '3001' }, 'en')).toMatch(
      /^DOCS_PORT must differ from PORT \(both 3001\): the documentation/,
    );
  });

  it('takes every valid form', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://app@db.internal:5432/invoicing',
      REDIS_URL: 'rediss://cache.internal:6380',
      DOCS_URL: 'https://docs.example/partner/',
      TZ_NAME: 'UTC',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      TRUST_PROXY: '10.0.0.0/8, loopback,::1',
      BODY_LIMIT_BYTES: '2048',
      OPS_PORT: '9464',
      OPS_HOST: '::1',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      docsUrl: 'https://docs.example/partner',
      trustProxy: '10.0.0.0/8,loopback,::1',
      bodyLimit: 2048,
      opsPort: 9464,
      opsHost: '::1',
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '192.168.0.0/255.255.0.0' }).trustProxy).toBe('192.168.0.0/255.255.0.0');
  });

  it('issue 40: the console has its own port (CONSOLE_PORT, default 3002, off), address and public URL', () => {
    const defaults = loadConfig({}).console;
    expect(defaults).toEqual({
      port: 3002,
      host: '127.0.0.1',
      url: 'http://127.0.0.1:3002',
      urlConfigured: false,
      secretKey: undefined,
    });
    expect(loadConfig({ CONSOLE_PORT: 'off' }).console.port).toBeNull();
    expect(loadConfig({ CONSOLE_PORT: '0' }).console.port).toBe(0);
    const behindProxy = loadConfig({ CONSOLE_URL: 'https://consola.example.co.mz/' }).console;
    expect(behindProxy.url).toBe('https://consola.example.co.mz');
    expect(behindProxy.urlConfigured).toBe(true);
    expect(refusal({ PORT: '3002' }, 'pt')).toMatch(
      /^CONSOLE_PORT tem de ser diferente de PORT \(ambos 3002\)/,
    );
    expect(refusal({ DOCS_PORT: '4000', CONSOLE_PORT: '4000' }, 'pt')).toMatch(
      /^CONSOLE_PORT tem de ser diferente de DOCS_PORT/,
    );
    expect(loadConfig({ PORT: '3002', CONSOLE_PORT: 'off' }).console.port).toBeNull();
  });

  it('issue 42, goal 4: the Config is made from the declarations alone, each declared place once, typed by its schema', () => {
    const places = ENV_NAMES.flatMap((name) => placesOf(name));
    expect(new Set(places).size).toBe(places.length);
    const config = loadConfig({}) as unknown as Record<string, unknown>;
    const made = Object.entries(config).flatMap(([key, value]) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.keys(value).map((field) => `${key}.${field}`)
        : [key],
    );
    expect(made.sort()).toEqual([...places].sort());
    expectTypeOf<Config['logLevel']>().toEqualTypeOf<(typeof LOG_LEVELS)[number]>();
    expectTypeOf<Config['logFormat']>().toEqualTypeOf<(typeof LOG_FORMATS)[number]>();
    expectTypeOf<Config['docsPort']>().toEqualTypeOf<number | null>();
    expectTypeOf<Config['rateLimits']['keyPerDay']>().toEqualTypeOf<number>();
    expectTypeOf<Config['console']['secretKey']>().toEqualTypeOf<string | undefined>();
  });
});
