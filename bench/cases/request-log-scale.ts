// The request log at scale (issue 40, goal 7): with 10 million rows (30 days at about 4 requests a
// second, bench/dataset/request-log.ts), what support and the console read, through the
// operations themselves (src/operations/requests/) on a pool like a server's:
// - `requests show` by id (goal: under 50 ms), random ids, the first of each a cold read;
// - filtered pages of `requests list` (company, key, route, status class, error code, time; goal:
//   p95 under 1 s over every page measured);
// - `usage` over 24 h, 7 and 30 days, read from the hourly rollups only.
// Each case: median, minimum and maximum of its samples. The plans (EXPLAIN ANALYZE, BUFFERS) of
// one sample of each are written to bench/results/request-log-plans.txt.
import { writeFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { max, median, min, percentile } from '../../scripts/lib/stats.js';
import type { ActingContext } from '../../src/context.js';
import { openDatabase, queryRows } from '../../src/db/client.js';
import {
  listRequests,
  type RequestQuery,
  routeTemplate,
  showRequest,
  type UsageWindow,
  usageReport,
} from '../../src/operations/requests/index.js';
import type { Log } from '../dataset/ensure.js';
import { ensureRequestLogDataset, KEYS_PER_COMPANY, type RequestLogDataset } from '../dataset/request-log.js';
import { resultsDir } from '../lib/paths.js';
import type { Report } from '../report.js';

export const REQUEST_LOG_ROWS = 10_000_000;
const GROUP = 'request-log-scale';
const HOUR_MS = 3_600_000;

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const range = (values: number[]) => `${ms(median(values))} (${ms(min(values))}–${ms(max(values))})`;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export async function runRequestLogScale(options: {
  rows: number;
  fresh: boolean;
  samples: number;
  report: Report;
  log: Log;
}): Promise<RequestLogDataset> {
  const { report, log } = options;
  const dataset = await ensureRequestLogDataset({ rows: options.rows, fresh: options.fresh, log });
  const handle = await openDatabase({ kind: 'postgres', url: dataset.url, poolSize: 4 });
  const plans: string[] = [];
  try {
    const context: ActingContext = {
      db: handle.db,
      timeZone: 'Africa/Maputo',
      actor: { kind: 'operator', name: 'bench', command: 'bench' },
    };
    const end = dataset.end.getTime();
    const samples = Math.max(5, options.samples * 4);

    // The pool's connections opened first, as a running server's are.
    await Promise.all([1, 2, 3, 4].map(() => queryRows(handle.db, sql`select 1`)));

    // ---- lookup by id ----
    const lookups: number[] = [];
    for (let n = 0; n < samples; n++) {
      const row = 1 + Math.floor(Math.random() * dataset.rows);
      const id = `req_${row.toString(16).padStart(24, '0')}`;
      lookups.push(await timed(() => showRequest(context, id)));
    }
    report.add({
      group: GROUP,
      case: `requests show by id (${samples} random ids of ${dataset.rows.toLocaleString('en-US')} rows)`,
      metric: 'ms median (min–max)',
      api: range(lookups),
      bare: '-',
      ratio: `${ms(percentile(lookups, 95))} ms p95`,
      goal: '< 50 ms',
      pass: percentile(lookups, 95) < 50,
      details: { samples: lookups },
    });

    // ---- filtered pages ----
    const big = dataset.bigCompany;
    const small = 17;
    const firstKey = (company: number) => (company - 1) * KEYS_PER_COMPANY + 1;
    const hoursAgo = (hours: number) => ({ at: new Date(end - hours * HOUR_MS) });
    const pages: [string, Omit<RequestQuery, 'limit'>][] = [
      ['company (large, 40% of rows)', { companyId: big }],
      ['company (small)', { companyId: small }],
      ['company + key', { companyId: big, apiKeyId: firstKey(big) + 2 }],
      ['company + route', { companyId: big, route: routeTemplate('/invoices/{id}/cancel') }],
      ['company + status 5xx', { companyId: big, status: { class: 5 } }],
      ['company + status 4xx', { companyId: small, status: { class: 4 } }],
      ['company + error code', { companyId: big, errorCode: 'idempotency_key_reuse' }],
      ['company + since 2 h', { companyId: small, since: hoursAgo(2) }],
      ['company + until 20 days ago (a deep page)', { companyId: big, until: hoursAgo(20 * 24) }],
      [
        'company + key + route + 4xx + 7 days',
        {
          companyId: small,
          apiKeyId: firstKey(small),
          route: routeTemplate('/customers/{id}'),
          status: { class: 4 },
          since: hoursAgo(7 * 24),
        },
      ],
    ];
    const everyPage: number[] = [];
    for (const [label, query] of pages) {
      const times: number[] = [];
      let rows = 0;
      for (let n = 0; n < options.samples; n++) {
        times.push(
          await timed(async () => (rows = (await listRequests(context, { ...query, limit: 50 })).length)),
        );
      }
      everyPage.push(...times);
      report.add({
        group: GROUP,
        case: `requests list: ${label}, 50 a page (${rows} found)`,
        metric: 'ms median (min–max)',
        api: range(times),
        bare: '-',
        ratio: '-',
        goal: '-',
        pass: null,
        details: { samples: times },
      });
    }
    const p95 = percentile(everyPage, 95);
    report.add({
      group: GROUP,
      case: `requests list: every filtered page above (${everyPage.length} pages)`,
      metric: 'p95 ms',
      api: ms(p95),
      bare: '-',
      ratio: `${ms(p95)} ms`,
      goal: '< 1000 ms p95',
      pass: p95 < 1000,
    });

    // ---- usage from the rollups ----
    for (const window of ['24h', '7d', '30d'] as UsageWindow[]) {
      for (const [label, query] of [
        ['company', { companyId: big }],
        ['key', { companyId: big, apiKeyId: firstKey(big) }],
      ] as const) {
        const times: number[] = [];
        for (let n = 0; n < options.samples; n++) {
          times.push(await timed(() => usageReport(context, { ...query, window, end: dataset.end })));
        }
        report.add({
          group: GROUP,
          case: `usage of a ${label}, ${window} (rollups)`,
          metric: 'ms median (min–max)',
          api: range(times),
          bare: '-',
          ratio: `${ms(percentile(times, 95))} ms p95`,
          goal: '< 1000 ms p95',
          pass: percentile(times, 95) < 1000,
          details: { samples: times },
        });
      }
    }

    // ---- the plans, for the record ----
    const explain = async (label: string, text: string) => {
      const rows = await queryRows<{ 'QUERY PLAN': string }>(
        handle.db,
        sql.raw(`explain (analyze, buffers) ${text}`),
      );
      plans.push(`-- ${label}\n${rows.map((row) => row['QUERY PLAN']).join('\n')}\n`);
    };
    const id = `req_${Math.floor(dataset.rows / 3)
      .toString(16)
      .padStart(24, '0')}`;
    await explain('lookup by id', `select * from request_log where request_id = '${id}' limit 1`);
    await explain(
      'company + route',
      `select * from request_log where company_id = ${big} and route = '${routeTemplate('/invoices/{id}/cancel')}' order by at desc limit 50`,
    );
    await explain(
      'company + status 5xx',
      `select * from request_log where company_id = ${big} and status between 500 and 599 order by at desc limit 50`,
    );
    await explain(
      'company + error code',
      `select * from request_log where company_id = ${big} and error_code = 'idempotency_key_reuse' order by at desc limit 50`,
    );
    await explain(
      'usage of a company, 30d',
      `select hour, sum(requests) from request_usage where company_id = ${big} and hour >= '${new Date(end - 30 * 24 * HOUR_MS).toISOString()}' group by hour`,
    );
    writeFileSync(`${resultsDir}/request-log-plans.txt`, plans.join('\n'));
    log(`  plans: ${resultsDir}/request-log-plans.txt`);
  } finally {
    await handle.close();
  }
  return dataset;
}
