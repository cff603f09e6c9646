// The app under test, on a fresh database of the current storage, and fixtures built through
// the same operations the command line uses.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { API_PREFIX, type App, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { ActingContext, CompanyContext } from '../../src/context.js';
import { type Database, type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import type { RateLimiter } from '../../src/http/rate-limit/index.js';
import { type CreatedApiKey, createApiKey, type KeyMode } from '../../src/operations/api-keys.js';
import { createCompany, setPartnerApi } from '../../src/operations/companies.js';
import type { OperationSetup } from '../../src/operations/define.js';
import { checkConformance } from './conformance.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const TEST_DOCS_URL = 'https://docs.test/partner-api/v1';

/** TZ_NAME of the tests: the configuration's default, read where the service reads it. */
export const TEST_TIME_ZONE = loadConfig({}).timeZone;

/** An operator at work in a fixture or a test (as `--actor test` would be), on `db` (or a transaction). */
export function asOperator(db: Database, timeZone = TEST_TIME_ZONE): ActingContext {
  return { db, timeZone, actor: { kind: 'operator', name: 'test', command: 'test fixture' } };
}

/** What operator operations run with in a test, as the command line gives them (`--actor` apart). */
export function operationSetup(
  handle: DatabaseHandle,
  overrides: Partial<OperationSetup> = {},
): OperationSetup {
  const config = loadConfig({});
  return { handle, timeZone: config.timeZone, webhooks: config.webhooks, runsIn: 'command', ...overrides };
}

/** The context a test gives a company's repository or service when it calls one directly. */
export function companyContext(db: Database, companyId: number, timeZone = TEST_TIME_ZONE): CompanyContext {
  return { db, companyId, timeZone, actor: { kind: 'system', name: 'test' } };
}

/** Limits high enough that only the rate-limit tests ever meet them. */
export const GENEROUS_LIMITS = {
  RATE_LIMIT_KEY_PER_MINUTE: '1000000',
  RATE_LIMIT_KEY_WRITES_PER_MINUTE: '1000000',
  RATE_LIMIT_KEY_PER_DAY: '1000000',
  RATE_LIMIT_COMPANY_PER_MINUTE: '1000000',
  RATE_LIMIT_IP_PER_MINUTE: '1000000',
};

export interface TestContext {
  app: App;
  db: Database;
  config: Config;
  database: TestDatabase;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  options: { rateLimiter?: RateLimiter; clock?: () => number } = {},
): Promise<TestContext> {
  const database = await createTestDatabase();
  const config = loadConfig({ DOCS_URL: TEST_DOCS_URL, ...GENEROUS_LIMITS, ...env });
  const app = checkConformance(
    await buildApp({ config, database: database.handle, logger: false, ...options }),
  );
  await app.ready();
  return {
    app,
    db: database.handle.db,
    config,
    database,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

export interface SecondInstance {
  app: App;
  close(): Promise<void>;
}

/**
 * A second instance beside `ctx.app`, as a second server of a deployment: its own pool (and
 * LISTEN) on PostgreSQL; on PGlite, where one process owns the database, a second app on the same
 * database. Its configuration is the first one's, but for `settings` (an operator's choice of one
 * instance, such as `{ requestLog: false }` for REQUEST_LOG=off). Not ready yet: `ready()` or
 * `listen()` it.
 */
export async function startSecondInstance(
  ctx: TestContext,
  settings: Partial<Config> = {},
): Promise<SecondInstance> {
  const handle = ctx.database.url ? await openDatabase({ kind: 'postgres', url: ctx.database.url }) : null;
  const config = { ...ctx.config, ...settings };
  const app = await buildApp({ config, database: handle ?? ctx.database.handle, logger: false });
  return {
    app,
    close: async () => {
      await app.close();
      await handle?.close();
    },
  };
}

export interface Tenant {
  companyId: number;
  key: string;
  apiKey: CreatedApiKey;
}

/** A company with the partner API enabled (unless said otherwise) and one key. */
export async function createTenant(
  db: Database,
  options: { name?: string; enabled?: boolean; mode?: KeyMode; scopes?: string[]; days?: number } = {},
): Promise<Tenant> {
  const company = await createCompany(db, { name: options.name ?? 'Empresa de Teste, Lda' });
  if (options.enabled ?? true) await setPartnerApi(db, company.id, true);
  const apiKey = await createApiKey(asOperator(db), {
    companyId: company.id,
    mode: options.mode ?? 'live',
    scopes: options.scopes ?? ['all'],
    days: options.days ?? 30,
  });
  return { companyId: company.id, key: apiKey.key, apiKey };
}

let keyCounter = 0;
/** A fresh Idempotency-Key, unique within the run. */
export function newIdempotencyKey(prefix = 'test'): string {
  return `${prefix}-${process.pid}-${Date.now()}-${keyCounter++}`;
}

export interface ApiRequest {
  key?: string | null;
  body?: unknown;
  /** Sent as is, byte for byte (idempotency compares raw bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

/** A request to the partner API by path relative to /api/v1/partner. */
export function api(
  app: App,
  method: string,
  path: string,
  request: ApiRequest = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
  const options: InjectOptions = {
    method: method as InjectOptions['method'],
    url: `${API_PREFIX}${path}`,
    headers,
  };
  if (request.rawBody !== undefined || request.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    options.payload = request.rawBody ?? JSON.stringify(request.body);
  }
  return app.inject(options);
}
