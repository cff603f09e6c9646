// The list walk the contract tells partners to do: GET /invoices page 1, 2, 3... (per_page 100)
// until current_page equals last_page, one request after the other. At 1M invoices that is
// 10,000 requests. --walk-pages K walks the first K pages and then the last 10; a walk that
// exceeds --walk-max-minutes does the same from where it is (both are reported as shortened).
// A complete walk also checks that every invoice was seen exactly once.

import { median } from '../../scripts/lib/stats.js';
import { GOALS } from '../goals.js';
import { fmt } from '../report.js';
import type { BenchContext } from './context.js';
import { getList } from './lists.js';

const PER_PAGE = 100;
const EDGE_PAGES = 10;

export async function runWalk(context: BenchContext): Promise<void> {
  const { options, log } = context;
  const started = performance.now();
  const budgetMs = options.walkMaxMinutes * 60_000;
  const times = new Map<number, number>();
  const seen = new Set<number>();
  let rows = 0;
  let total = 0;
  let shortened: string | null = null;
  let page = 1;
  for (;;) {
    const { answer, ms } = await getList(context, `/invoices?per_page=${PER_PAGE}&page=${page}`);
    times.set(page, ms);
    rows += answer.data.length;
    for (const invoice of answer.data) seen.add(invoice.id);
    total = answer.pagination.total;
    const lastPage = answer.pagination.last_page;
    if (answer.pagination.current_page >= lastPage) break;
    if (page % 500 === 0)
      log(`  walk: page ${page} of ${lastPage}, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const tail = lastPage - EDGE_PAGES + 1;
    const cut =
      options.walkPages > 0 && page >= options.walkPages
        ? `--walk-pages ${options.walkPages}`
        : performance.now() - started > budgetMs
          ? `--walk-max-minutes ${options.walkMaxMinutes}`
          : null;
    if (cut && page + 1 < tail) {
      shortened = `${cut}: pages 1-${page}, then ${tail}-${lastPage}`;
      page = tail;
    } else {
      page++;
    }
  }
  const pages = [...times.keys()].sort((a, b) => a - b);
  const firstMs = median(pages.slice(0, EDGE_PAGES).map((p) => times.get(p)!));
  const lastMs = median(pages.slice(-EDGE_PAGES).map((p) => times.get(p)!));
  const complete = shortened === null;
  const everyRowOnce = !complete || (rows === total && seen.size === total);
  const ratio = lastMs / firstMs;
  const seconds = (performance.now() - started) / 1000;
  context.report.add({
    group: 'walk',
    case: `walk GET /invoices per_page ${PER_PAGE}: ${pages.length} pages in ${fmt(seconds, 0)} s${complete ? '' : ` (shortened, ${shortened})`}`,
    metric: 'last/first ms',
    api: `${fmt(lastMs)} / ${fmt(firstMs)}`,
    bare: '-',
    ratio: `${ratio.toFixed(2)}x${complete ? (everyRowOnce ? ', every row once' : ', ROWS MISSED OR REPEATED') : ''}`,
    goal: `≤ ${GOALS.walkLastVsFirst}x`,
    pass: everyRowOnce && ratio <= GOALS.walkLastVsFirst,
    details: {
      pagesWalked: pages.length,
      seconds,
      shortened,
      total,
      rowsSeen: rows,
      distinctIds: seen.size,
      firstPagesMs: pages.slice(0, EDGE_PAGES).map((p) => times.get(p)),
      lastPagesMs: pages.slice(-EDGE_PAGES).map((p) => times.get(p)),
    },
  });
}
