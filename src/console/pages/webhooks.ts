// A company's webhooks: its endpoints, an endpoint's page with its deliveries, and the actions on
// them: resend one event or replay a window of time (`webhooks resend`), send a test event
// (`webhooks test`).
import type { FastifyReply } from 'fastify';
import { EVENT_TYPES } from '../../webhooks/event-types.js';
import {
  act,
  can,
  form,
  idParam,
  notFoundPage,
  type PageContext,
  params,
  run,
  visibleCompany,
} from './shared.js';

/** GET /companies/:id/webhooks: the company's endpoints. */
export async function webhooksPage(page: PageContext): Promise<FastifyReply> {
  const company = await visibleCompany(page);
  if (!company) return notFoundPage(page);
  const { endpoints } = await run(page, 'webhooks.list', { company: company.id });
  return page.render('webhooks', page.t('webhooks.title', { name: company.name }), { company, endpoints });
}

/** An endpoint's page with its latest deliveries; after an action, with what it did. */
export async function endpointPage(page: PageContext, notice?: string): Promise<FastifyReply> {
  const company = await visibleCompany(page);
  const endpointId = idParam(params(page).endpointId ?? form(page).endpoint);
  if (!company || endpointId === null) return notFoundPage(page);
  const { endpoints } = await run(page, 'webhooks.list', { company: company.id });
  const endpoint = endpoints.find((e) => e.id === endpointId);
  if (!endpoint) return notFoundPage(page);
  const { deliveries } = await run(page, 'webhooks.deliveries', { id: endpoint.id, limit: 50 });
  return page.render(
    'endpoint',
    page.t('endpoint.title', { id: endpoint.id }),
    { company, endpoint, deliveries, can: can(page), eventTypes: EVENT_TYPES },
    { notice },
  );
}

/** Resend one delivery: `webhooks resend --event ID`, for an event of this company's endpoint. */
export async function resendDelivery(page: PageContext): Promise<FastifyReply> {
  const company = await visibleCompany(page);
  if (!company) return notFoundPage(page);
  const body = form(page);
  const endpointId = idParam(body.endpoint);
  const { endpoints } = await run(page, 'webhooks.list', { company: company.id });
  if (endpointId === null || !endpoints.some((e) => e.id === endpointId)) return notFoundPage(page);
  const { deliveries } = await run(page, 'webhooks.deliveries', { id: endpointId, limit: 1000 });
  if (!deliveries.some((d) => d.event_id === body.event)) return notFoundPage(page);
  return act(page, 'webhooks.resend', { event: body.event }, () =>
    page.reply.redirect(`/companies/${company.id}/webhooks/${endpointId}`, 303),
  );
}

/** The endpoint of the path, when it is this (visible) company's. */
async function endpointOf(page: PageContext) {
  const company = await visibleCompany(page);
  const endpointId = idParam(params(page).endpointId);
  if (!company || endpointId === null) return null;
  const { endpoints } = await run(page, 'webhooks.list', { company: company.id });
  return endpoints.some((e) => e.id === endpointId) ? { company, endpointId } : null;
}

/** Replay a window: `webhooks resend --endpoint ID --since T [--until T]`. */
export async function replayWindow(page: PageContext): Promise<FastifyReply> {
  const found = await endpointOf(page);
  if (!found) return notFoundPage(page);
  const body = form(page);
  const args = { endpoint: found.endpointId, since: body.since?.trim(), until: body.until?.trim() };
  return act(page, 'webhooks.resend', args, (result) => {
    const resent = 'resent' in result ? result.resent : 0;
    const more =
      'more' in result && result.more
        ? page.t('endpoint.replayed_more', { next: result.next_since ?? '' })
        : '';
    return endpointPage(page, `${page.t('endpoint.replayed', { count: resent })}${more}`);
  });
}

/** Send a test event: `webhooks test ID [--type T]` (a ping, or a sample of one event type). */
export async function sendTestEvent(page: PageContext): Promise<FastifyReply> {
  const found = await endpointOf(page);
  if (!found) return notFoundPage(page);
  const args = { id: found.endpointId, type: form(page).type?.trim() };
  return act(page, 'webhooks.test', args, (result) =>
    endpointPage(
      page,
      page.t('endpoint.tested', {
        event: result.event_id,
        type: result.type,
        status: result.status + (result.status_code === null ? '' : ` (${result.status_code})`),
      }),
    ),
  );
}
