// The request log's data set (issue 40, goal 7): N rows (10 million by default: 30 days at about
// 4 requests a second) in database partner_bench_request_log_<N>, schema by the project's
// migrations, rows by one set-based INSERT ... generate_series (secondary indexes dropped during
// the load and re-created after), rollups by the migration's request_usage_rebuild(), then VACUUM
// ANALYZE. Kept between runs like the invoices' data set: complete once its marker row exists.
//
// Shape: 50 companies with 4 keys each; one company sends 40% of the traffic (a large partner),
// the others share the rest. Statuses: ~93% 2xx, 1% 429, ~5% other 4xx (404, 422, 409, 401), 0.2%
// 5xx (no error code); ~25% writes; 0.5% use a deprecated item; durations log-normal around 8 ms. Request ids are
// req_ and the row number in 24 hex digits, so lookups pick ids at random.
import { invoicing } from '../lib/invoicing-cli.js';
import { createDatabase, databaseExists, databaseUrl, dropDatabase, withClient } from '../lib/postgres.js';
import { dropSecondaryIndexesAndForeignKeys, recreate } from './bulk-load.js';
import type { Log } from './ensure.js';

export const REQUEST_LOG_GENERATOR_VERSION = 1;
export const REQUEST_LOG_COMPANIES = 50;
export const KEYS_PER_COMPANY = 4;

export interface RequestLogDataset {
  database: string;
  url: string;
  rows: number;
  /** The newest row's time: windows and filters are measured relative to it. */
  end: Date;
  /** The company that sends 40% of the traffic. */
  bigCompany: number;
  generatedSeconds: number;
  sizeBytes: number;
}

const MARKER = `create table if not exists bench.request_log_dataset (
  rows integer primary key, generator_version integer not null, end_at timestamptz not null,
  generated_seconds numeric not null, completed_at timestamptz not null default now())`;

export const ROUTES = [
  ['GET', '/api/v1/partner/invoices', 20],
  ['GET', '/api/v1/partner/invoices/:id', 15],
  ['POST', '/api/v1/partner/invoices', 15],
  ['GET', '/api/v1/partner/customers', 10],
  ['GET', '/api/v1/partner/customers/:id', 10],
  ['POST', '/api/v1/partner/customers', 5],
  ['PUT', '/api/v1/partner/customers/:id', 3],
  ['GET', '/api/v1/partner/products', 8],
  ['GET', '/api/v1/partner/products/:id', 5],
  ['POST', '/api/v1/partner/products', 2],
  ['PUT', '/api/v1/partner/products/:id', 1],
  ['POST', '/api/v1/partner/invoices/:id/issue', 3],
  ['POST', '/api/v1/partner/invoices/:id/cancel', 1],
  ['GET', '/api/v1/partner/ping', 2],
] as const;

/** `case` arms picking a route by its weight from a uniform number in [0, 100). */
function routeCase(column: 0 | 1): string {
  let upper = 0;
  const arms = ROUTES.map((route) => {
    upper += route[2];
    return `when u < ${upper} then '${route[column]}'`;
  });
  return `case ${arms.join(' ')} else '${ROUTES[0][column]}' end`;
}

function insertRows(rows: number, endMs: number): string {
  const spanSeconds = 30 * 24 * 3600;
  return `insert into request_log (at, company_id, api_key_id, method, route, status, error_code, request_id,
      idempotency_key, replayed, duration_us, client_ip, deprecated_use)
    select to_timestamp(${endMs / 1000} - ${spanSeconds} + (i::double precision * ${spanSeconds} / ${rows})),
      company, (company - 1) * ${KEYS_PER_COMPANY} + 1 + (i % ${KEYS_PER_COMPANY}),
      method, route, status,
      case status when 429 then 'rate_limit_exceeded' when 404 then 'resource_not_found'
        when 422 then 'validation_failed' when 409 then 'idempotency_key_reuse' when 401 then 'api_key_revoked' end,
      'req_' || lpad(to_hex(i), 24, '0'),
      case when method <> 'GET' then 'bench-' || i end, false,
      greatest(200, least(60000000, (8000 * exp(0.8 * sqrt(-2 * ln(1 - s1)) * cos(6.283185307 * s2)))::integer)),
      '10.0.' || (company % 250) || '.' || (i % 250),
      case when d < 0.005 then '["GET /customers?search"]'::jsonb end
    from (
      select i, company, u, ${routeCase(0)} as method, ${routeCase(1)} as route,
        case when v < 0.01 then 429 when v < 0.04 then 404 when v < 0.055 then 422 when v < 0.058 then 409
          when v < 0.06 then 401 when v < 0.0615 then 500 when v < 0.062 then 503
          when v < 0.082 then 200 else (case when u >= 50 then 200 else 201 end) end as status,
        s1, s2, d
      from (
        select i,
          case when random() < 0.4 then 1 else 2 + (random() * ${REQUEST_LOG_COMPANIES - 2})::integer end as company,
          random() * 100 as u, random() as v, random() as s1, random() as s2, random() as d
        from generate_series(1, ${rows}) as i) as picked) as shaped`;
}

export async function ensureRequestLogDataset(options: {
  rows: number;
  fresh: boolean;
  log: Log;
}): Promise<RequestLogDataset> {
  const { rows, log } = options;
  const database = process.env.BENCH_REQUEST_LOG_DATABASE || `partner_bench_request_log_${rows}`;
  const url = databaseUrl(database);
  const read = async (): Promise<RequestLogDataset | null> =>
    withClient(url, async (client) => {
      const exists = await client.query(`select to_regclass('bench.request_log_dataset') is not null as ok`);
      if (!exists.rows[0]?.ok) return null;
      const marker = await client.query(
        'select end_at, generated_seconds from bench.request_log_dataset where rows = $1 and generator_version = $2',
        [rows, REQUEST_LOG_GENERATOR_VERSION],
      );
      if (!marker.rows[0]) return null;
      const size = await client.query('select pg_database_size(current_database())::bigint as size');
      return {
        database,
        url,
        rows,
        end: new Date(marker.rows[0].end_at),
        bigCompany: 1,
        generatedSeconds: Number(marker.rows[0].generated_seconds),
        sizeBytes: Number(size.rows[0].size),
      };
    });
  if (!options.fresh && (await databaseExists(database))) {
    const found = await read();
    if (found) {
      log(
        `Request log data set ${database} exists (${rows} rows, ending ${found.end.toISOString()}): reused`,
      );
      await invoicing({ databaseUrl: url }, ['migrate']);
      return found;
    }
  }
  log(`Generating the request log data set ${database} (${rows} rows)`);
  const started = performance.now();
  await dropDatabase(database);
  await createDatabase(database);
  await invoicing({ databaseUrl: url }, ['migrate']);
  const endMs = Math.floor(Date.now() / 1000) * 1000;
  await withClient(url, async (client) => {
    const step = async (label: string, text: string) => {
      const at = performance.now();
      await client.query(text);
      log(`  ${label}: ${((performance.now() - at) / 1000).toFixed(1)} s`);
    };
    await client.query("set maintenance_work_mem = '256MB'");
    const saved = await dropSecondaryIndexesAndForeignKeys(client, ['request_log']);
    await step('rows (generate_series)', insertRows(rows, endMs));
    const at = performance.now();
    await recreate(client, saved);
    log(`  indexes: ${((performance.now() - at) / 1000).toFixed(1)} s`);
    await step('rollups (request_usage_rebuild)', 'select request_usage_rebuild()');
    await step('vacuum analyze', 'vacuum analyze request_log, request_usage, request_usage_codes');
    await client.query('create schema if not exists bench');
    await client.query(MARKER);
    await client.query(
      'insert into bench.request_log_dataset (rows, generator_version, end_at, generated_seconds) values ($1, $2, $3, $4)',
      [rows, REQUEST_LOG_GENERATOR_VERSION, new Date(endMs), (performance.now() - started) / 1000],
    );
  });
  const found = await read();
  if (!found) throw new Error('the request log data set has no marker after its load');
  log(`  done in ${found.generatedSeconds.toFixed(0)} s, ${(found.sizeBytes / 1024 ** 3).toFixed(2)} GB`);
  return found;
}
