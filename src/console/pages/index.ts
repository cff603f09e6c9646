// The console's pages, one handler per row of src/console/roles.ts (the type makes every row have
// one). Reads use the operations' reads or plain queries; every change to companies, keys,
// webhooks and staff is an operation of the CLI's table (src/operations/index.ts), run in this
// process with the staff member as the actor, so it is audited and takes effect as a CLI change
// does. Sign-in, setup and sign-out are the console's own.
import { and, eq } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import { companies, idempotencyKeys } from '../../db/schema.js';
import { OperationError } from '../../operations/errors.js';
import type { OperationResult } from '../../operations/index.js';
import { USAGE_WINDOWS, type UsageReport, type UsageWindow } from '../../operations/requests/index.js';
import { lines, pointLabel, stackedBars } from '../charts.js';
import type { RouteKey } from '../roles.js';
import { completeSetup, homeRedirect, login, loginPage, logout, setupPage } from './account.js';
import { companiesPage, companyPage, setApi } from './companies.js';
import { createKey, keyPage, keysPage, revokeKey, rollKey } from './keys.js';
import {
  form,
  idParam,
  notFoundPage,
  type PageContext,
  params,
  query,
  refusalText,
  refused,
  run,
} from './shared.js';
import { endpointPage, replayWindow, resendDelivery, sendTestEvent, webhooksPage } from './webhooks.js';

export type { PageContext } from './shared.js';

type Handler = (page: PageContext) => Promise<FastifyReply> | FastifyReply;

// ---- usage ----

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

async function usagePage(page: PageContext): Promise<FastifyReply> {
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

// ---- requests, audit, staff ----

async function requestsPage(page: PageContext): Promise<FastifyReply> {
  const q = query(page);
  const requestId = q.request_id?.trim();
  if (requestId) return page.reply.redirect(`/requests/${encodeURIComponent(requestId)}`, 303);
  const partner = page.staff?.role === 'partner';
  const company = partner ? String(page.staff?.companyId) : q.company?.trim();
  const filters = { company: q.company, key: q.key, route: q.route, status: q.status, since: q.since };
  let requests: OperationResult<'requests.list'>['requests'] | null = null;
  if (company) {
    try {
      requests = (
        await run(page, 'requests.list', {
          company,
          key: q.key?.trim(),
          route: q.route?.trim(),
          status: q.status?.trim(),
          since: q.since?.trim(),
          limit: 100,
        })
      ).requests;
    } catch (error) {
      if (!(error instanceof OperationError)) throw error;
      return page.render(
        'requests',
        page.t('requests.title'),
        { filters, partner, requests: [] },
        {
          status: 422,
          error: refusalText(page, error),
        },
      );
    }
  }
  return page.render('requests', page.t('requests.title'), { filters, partner, requests });
}

async function requestPage(page: PageContext): Promise<FastifyReply> {
  const requestId = params(page).requestId ?? '';
  let shown: OperationResult<'requests.show'>;
  try {
    shown = await run(page, 'requests.show', { request_id: requestId });
  } catch (error) {
    if (error instanceof OperationError) return notFoundPage(page);
    throw error;
  }
  // Another company's request is missing, for a partner.
  if (page.staff?.role === 'partner' && shown.request.company_id !== page.staff.companyId)
    return notFoundPage(page);
  let answer: string | null = null;
  if (shown.record) {
    const [stored] = await page.deps.handle.db
      .select({ body: idempotencyKeys.responseBody })
      .from(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.companyId, shown.request.company_id),
          eq(idempotencyKeys.apiKeyId, shown.request.api_key_id),
          eq(idempotencyKeys.key, shown.record.idempotency_key),
        ),
      );
    answer = stored?.body ?? null;
  }
  return page.render('request', page.t('request.title', { id: shown.request.request_id }), {
    r: shown.request,
    record: shown.record,
    events: shown.events,
    answer,
  });
}

async function auditPage(page: PageContext): Promise<FastifyReply> {
  const q = query(page);
  const filters = { company: q.company?.trim(), since: q.since?.trim() };
  try {
    const { entries } = await run(page, 'audit.list', {
      company: filters.company,
      since: filters.since,
      limit: 200,
    });
    return page.render('audit', page.t('audit.title'), { entries: entries.reverse(), filters });
  } catch (error) {
    if (!(error instanceof OperationError)) throw error;
    return page.render(
      'audit',
      page.t('audit.title'),
      { entries: [], filters },
      {
        status: 422,
        error: refusalText(page, error),
      },
    );
  }
}

async function staffPage(
  page: PageContext,
  link?: { email: string; url: string },
  notice?: string,
): Promise<FastifyReply> {
  const { staff } = await run(page, 'staff.list', {});
  return page.render('staff', page.t('staff.title'), { staff, link }, { notice });
}

function consoleUrl(page: PageContext): string {
  return page.deps.config.urlConfigured
    ? page.deps.config.url
    : (page.deps.listeningUrl?.() ?? page.deps.config.url);
}

async function createStaffMember(page: PageContext): Promise<FastifyReply> {
  const body = form(page);
  try {
    const person = await run(page, 'staff.create', {
      email: body.email,
      name: body.name,
      role: body.role,
      company: body.role === 'partner' ? body.company : undefined,
    });
    return staffPage(page, { email: person.email, url: `${consoleUrl(page)}${person.setup_path}` });
  } catch (error) {
    return refused(page, error);
  }
}

async function staffAction(
  page: PageContext,
  action: 'staff.disable' | 'staff.reset',
): Promise<FastifyReply> {
  const id = idParam(params(page).id);
  if (id === null) return notFoundPage(page);
  try {
    const result = await run(page, action, { id });
    if ('setup_path' in result) {
      return staffPage(page, { email: result.email, url: `${consoleUrl(page)}${result.setup_path}` });
    }
    return staffPage(page, undefined, page.t('staff.disabled', { id }));
  } catch (error) {
    return refused(page, error);
  }
}

// ---- the table: one handler per route of src/console/roles.ts ----

type PageKey = Exclude<RouteKey, `GET /assets/${string}` | 'GET /favicon.ico'>;

export const PAGES: Record<PageKey, Handler> = {
  'GET /login': loginPage,
  'POST /login': login,
  'GET /setup/:token': setupPage,
  'POST /setup/:token': completeSetup,
  'POST /logout': logout,
  'GET /': homeRedirect,
  'GET /companies': companiesPage,
  'GET /companies/:id': companyPage,
  'POST /companies/:id/api': setApi,
  'GET /companies/:id/keys': (page) => keysPage(page),
  'POST /companies/:id/keys': createKey,
  'GET /companies/:id/keys/:keyId': (page) => keyPage(page),
  'POST /companies/:id/keys/:keyId/roll': rollKey,
  'POST /companies/:id/keys/:keyId/revoke': revokeKey,
  'GET /companies/:id/webhooks': webhooksPage,
  'GET /companies/:id/webhooks/:endpointId': (page) => endpointPage(page),
  'POST /companies/:id/webhooks/resend': resendDelivery,
  'POST /companies/:id/webhooks/:endpointId/replay': replayWindow,
  'POST /companies/:id/webhooks/:endpointId/test': sendTestEvent,
  'GET /usage': usagePage,
  'GET /requests': requestsPage,
  'GET /requests/:requestId': requestPage,
  'GET /audit': auditPage,
  'GET /staff': (page) => staffPage(page),
  'POST /staff': createStaffMember,
  'POST /staff/:id/disable': (page) => staffAction(page, 'staff.disable'),
  'POST /staff/:id/reset': (page) => staffAction(page, 'staff.reset'),
};
