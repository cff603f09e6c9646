// The usage page: a company's or a key's requests per step of a window (`usage`), by class of
// status and with their latency, as charts drawn on the server (src/console/charts.ts) and as
// tables of the same numbers. A partner sees its own company's only.
import { eq } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import { companies } from '../../db/schema.js';
import { OperationError } from '../../operations/errors.js';
import { USAGE_WINDOWS, type UsageReport, type UsageWindow } from '../../operations/requests/index.js';
import { lines, pointLabel, stackedBars } from '../charts.js';
import { idParam, notFoundPage, type PageContext, query, run } from './shared.js';

/** A colour per class of status, for the status chart. */
const STATUS_COLOURS = {
  status_2xx: '#1e6b34',
  status_3xx: '#0b5cad',
  status_4xx: '#b35c00',
  status_5xx: '#a4161a',
};

/** The usage page's charts (SVG made on the server; the page's tables hold the same numbers). */
function usageCharts(page: PageContext, report: UsageReport): { status: string; latency: string } {
  const labels = report.series.map((point) => pointLabel(point, report.step));
  const classes = (['status_2xx', 'status_3xx', 'status_4xx', 'status_5xx'] as const).map((field) => ({
    label: page.t(`usage.${field}`),
    colour: STATUS_COLOURS[field],
    values: report.series.map((point) => point[field]),
  }));
  return {
    status: stackedBars(page.t('usage.chart_status'), 'chart-status', labels, classes),
    latency: lines(page.t('usage.chart_latency'), 'chart-latency', labels, [
      { label: 'p50', colour: '#0b5cad', values: report.series.map((point) => point.p50_ms) },
      { label: 'p99', colour: '#a4161a', values: report.series.map((point) => point.p99_ms) },
    ]),
  };
}

/** GET /usage: a company's (or one key's) requests over a window, charted and tabled. */
export async function usagePage(page: PageContext): Promise<FastifyReply> {
  const q = query(page);
  const partner = page.staff?.role === 'partner';
  const asked = q.company?.trim() || undefined;
  // A partner sees its own company's usage; another company's answers like a missing one.
  if (partner && asked !== undefined && asked !== String(page.staff?.companyId)) return notFoundPage(page);
  const company = partner ? String(page.staff?.companyId) : asked;
  const window = (q.window && Object.hasOwn(USAGE_WINDOWS, q.window) ? q.window : '24h') as UsageWindow;
  const key = q.key?.trim() || undefined;
  const filters = { company: company ?? '', key: key ?? '', window };
  const windows = Object.keys(USAGE_WINDOWS);
  if (!company)
    return page.render('usage', page.t('usage.title'), { filters, partner, windows, report: null });
  if (idParam(company) === null || (key !== undefined && idParam(key) === null)) return notFoundPage(page);
  let report: UsageReport;
  try {
    report = await run(page, 'usage', { company, key, window });
  } catch (error) {
    // A missing company, or a key not of this company: missing.
    if (error instanceof OperationError) return notFoundPage(page);
    throw error;
  }
  const [named] = await page.deps.handle.db
    .select({ name: companies.name })
    .from(companies)
    .where(eq(companies.id, report.company_id));
  return page.render(
    'usage',
    page.t(key ? 'usage.title_key' : 'usage.title_company', { name: named?.name ?? '', key: key ?? '' }),
    {
      filters,
      partner,
      windows,
      report,
      charts: usageCharts(page, report),
      labels: report.series.map((point) => pointLabel(point, report.step)),
    },
  );
}
