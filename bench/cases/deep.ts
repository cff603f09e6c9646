// A random page in the middle of each list (invoices at 1M: page ~5000 of 100, offset ~500k),
// default order, one request at a time; each sample is another random page near the middle.

import { summary } from '../../scripts/lib/stats.js';
import { GOALS } from '../goals.js';
import { fmt, fmtRange } from '../report.js';
import type { BenchContext } from './context.js';
import type { Resource } from './list-cases.js';
import { getList } from './lists.js';

const PER_PAGE = 100;

export async function runDeepPages(context: BenchContext): Promise<void> {
  for (const resource of ['invoices', 'customers', 'products', 'payments'] as Resource[]) {
    const first = await getList(context, `/${resource}?per_page=${PER_PAGE}`);
    const lastPage = first.answer.pagination.last_page;
    const times: number[] = [];
    const pages: number[] = [];
    for (let i = 0; i <= context.options.samples; i++) {
      const page = Math.max(1, Math.round(lastPage * (0.45 + Math.random() * 0.1)));
      const { answer, ms } = await getList(context, `/${resource}?per_page=${PER_PAGE}&page=${page}`);
      if (answer.data.length !== Math.min(PER_PAGE, answer.pagination.total - (page - 1) * PER_PAGE)) {
        throw new Error(`GET /${resource} page ${page} returned ${answer.data.length} rows`);
      }
      if (i > 0) {
        times.push(ms);
        pages.push(page);
      }
    }
    const stats = summary(times);
    context.report.add({
      group: 'deep',
      case: `GET /${resource} deep page (~${pages[0]} of ${lastPage}, per_page ${PER_PAGE})`,
      metric: 'median ms',
      api: fmtRange(stats),
      bare: '-',
      ratio: `${fmt(stats.median)} ms`,
      goal: `≤ ${GOALS.deepPageMs} ms`,
      pass: stats.median <= GOALS.deepPageMs,
      details: { pages, samplesMs: times, lastPage },
    });
  }
}
