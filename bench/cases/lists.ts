// Page 1 of every list case, one request at a time: median of N (min, max) against the goal,
// and the `total` each answer reports must be exactly the count of the matching rows.

import { summary } from '../../scripts/lib/stats.js';
import { GOALS } from '../goals.js';
import { getJson } from '../lib/http.js';
import { queryRows } from '../lib/postgres.js';
import { fmt, fmtRange } from '../report.js';
import { API_PREFIX, type BenchContext, bearer, beforeCase } from './context.js';
import { countSql, type ListCase, listCases, pathOf } from './list-cases.js';
import { listParams } from './list-params.js';

export interface ListAnswer {
  data: { id: number }[];
  pagination: { total: number; count: number; per_page: number; current_page: number; last_page: number };
}

export async function expectedTotal(context: BenchContext, listCase: ListCase): Promise<number> {
  const [row] = await queryRows<{ total: number }>(
    context.dataset.url,
    countSql(listCase.resource, listCase.where),
    [context.dataset.mainCompany, ...listCase.values],
  );
  return row?.total ?? 0;
}

/** GET a list page; throws unless it answers 200 with a list body. */
export async function getList(
  context: BenchContext,
  path: string,
  serverUrl = context.api.url,
): Promise<{ answer: ListAnswer; ms: number }> {
  const response = await getJson<ListAnswer>(`${serverUrl}${API_PREFIX}${path}`, bearer(context.readKey));
  if (response.status !== 200 || !response.json.pagination) {
    throw new Error(
      `GET ${path} answered ${response.status}: ${JSON.stringify(response.json).slice(0, 300)}`,
    );
  }
  return { answer: response.json, ms: response.ms };
}

/**
 * What any write of the company does: the data version every instance reads moves, so no remembered
 * total of the company is valid and the next request of any list counts as on a server that has
 * never seen the query. Nothing else changes.
 */
async function forgetRememberedTotals(context: BenchContext): Promise<void> {
  await queryRows(
    context.dataset.url,
    `insert into data_versions as v (company_id, version) values ($1, 1)
       on conflict (company_id) do update set version = v.version + 1`,
    [context.dataset.mainCompany],
  );
}

/**
 * Per case, two rows: the first request of the query (each sample right after the company's data
 * version moved), and the same request repeated (its total remembered). Then one row of the cold
 * list maxima: how many first requests took more than the repeated page's goal, and the slowest.
 * With `--before`, the code before's API takes its first requests in the same loop, sample by
 * sample, the two alternating which goes first: neither meets the caches colder than the other.
 */
export async function runLists(context: BenchContext): Promise<void> {
  const params = await listParams(context.dataset.url, context.dataset.mainCompany);
  const servers = [context.api.url, ...(context.before ? [context.before.api.url] : [])];
  const cold: { label: string; ms: number }[][] = servers.map(() => []);
  for (const [caseIndex, listCase] of listCases(params).entries()) {
    const path = pathOf(listCase.resource, listCase.query);
    const label = `GET /${listCase.resource} ${listCase.label}`;
    const expected = await expectedTotal(context, listCase);
    const totals = new Set<number>();
    const first: number[] = [];
    for (let i = 0; i < context.options.samples; i++) {
      // Which code meets a query first (the coldest sample) alternates from case to case too.
      const order = (caseIndex + i) % 2 === 0 ? servers.keys() : [...servers.keys()].reverse();
      for (const index of order) {
        await forgetRememberedTotals(context);
        const { answer, ms } = await getList(context, path, servers[index]);
        cold[index]!.push({ label, ms });
        if (index > 0) continue;
        totals.add(answer.pagination.total);
        first.push(ms);
      }
    }
    const repeated: number[] = [];
    for (let i = 0; i < context.options.samples; i++) {
      const { answer, ms } = await getList(context, path);
      totals.add(answer.pagination.total);
      repeated.push(ms);
    }
    const exact = totals.size === 1 && totals.has(expected);
    const totalText = exact ? 'exact' : `WRONG (${[...totals].join(',')} vs ${expected})`;
    const firstGoal = listCase.sync ? GOALS.listSyncFirstMs : GOALS.listFirstMs;
    const rows = [
      { metric: 'page 1 ms, first request', times: first, goal: firstGoal },
      { metric: 'page 1 ms, repeated', times: repeated, goal: GOALS.listPage1Ms },
    ];
    for (const { metric, times, goal } of rows) {
      const stats = summary(times);
      context.report.add({
        group: 'lists',
        case: label,
        metric,
        api: fmtRange(stats),
        bare: '-',
        ratio: `${fmt(stats.median)} ms, total ${totalText}`,
        goal: `≤ ${goal} ms, exact total`,
        pass: exact && stats.median <= goal,
        details: { path, expectedTotal: expected, reportedTotals: [...totals], samplesMs: times },
      });
    }
  }
  for (const [index, samples] of cold.entries()) coldListRow(context, samples, index > 0);
}

/** The cold list maxima: first requests of page 1 over the repeated page's goal, and the slowest three. */
function coldListRow(context: BenchContext, cold: { label: string; ms: number }[], before: boolean): void {
  const over = cold.filter((sample) => sample.ms > GOALS.listPage1Ms);
  const slowest = [...cold].sort((a, b) => b.ms - a.ms).slice(0, 3);
  const caseName = 'Lists, page 1, first requests: the cold maxima';
  context.report.add({
    group: 'lists',
    case: before ? beforeCase(context, caseName) : caseName,
    metric: `first requests over ${GOALS.listPage1Ms} ms`,
    api: `${over.length} of ${cold.length}`,
    bare: '-',
    ratio: `slowest: ${slowest.map((sample) => `${sample.label} ${fmt(sample.ms)} ms`).join('; ')}`,
    goal: '-',
    pass: null,
    details: { over },
  });
}
