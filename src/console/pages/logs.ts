// The two logs the console searches: the request log (`requests list`, `requests show`) and the
// audit log of changes (`audit list`). A filter the operation refuses is shown on the page (422),
// with the filters kept; a partner sees its own company's requests only, and no audit.
import { and, eq } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import { idempotencyKeys } from '../../db/schema.js';
import { OperationError } from '../../operations/errors.js';
import type { OperationResult } from '../../operations/index.js';
import { notFoundPage, type PageContext, params, query, refusalText, run } from './shared.js';

/** GET /requests: a company's requests, filtered; a request id goes straight to its page. */
export async function requestsPage(page: PageContext): Promise<FastifyReply> {
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

/** GET /requests/:requestId: one request, its idempotency record and stored answer, its events. */
export async function requestPage(page: PageContext): Promise<FastifyReply> {
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

/** GET /audit: the latest 200 entries of the audit log (changes through the operations), newest first. */
export async function auditPage(page: PageContext): Promise<FastifyReply> {
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
