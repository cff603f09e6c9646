// A company's API keys: the list, creating one (its secret shown once, in that answer only), a
// key's page, rolling it (with a grace period for the old secret) and revoking it. Each change is
// the operation of the same name (`keys create`, `keys roll`, `keys revoke`).
import type { FastifyReply } from 'fastify';
import type { TextKey } from '../../i18n/catalog.js';
import type { OperationResult } from '../../operations/index.js';
import {
  act,
  can,
  form,
  idParam,
  notFoundPage,
  type PageContext,
  params,
  query,
  run,
  visibleCompany,
} from './shared.js';

/** GET /companies/:id/keys; after createKey, with the new key's secret. */
export async function keysPage(
  page: PageContext,
  created?: OperationResult<'keys.create'>,
): Promise<FastifyReply> {
  const company = await visibleCompany(page);
  if (!company) return notFoundPage(page);
  const { keys } = await run(page, 'keys.list', { company: company.id });
  return page.render('keys', page.t('keys.title', { name: company.name }), {
    company,
    keys,
    created,
    can: can(page),
  });
}

export async function createKey(page: PageContext): Promise<FastifyReply> {
  const company = await visibleCompany(page);
  if (!company) return notFoundPage(page);
  const body = form(page);
  const args = { company: company.id, mode: body.mode, scopes: body.scopes, days: body.days };
  // The secret is in this answer only (never in a URL, never stored).
  return act(page, 'keys.create', args, (created) => keysPage(page, created));
}

/** The key of the path, when it is this (visible) company's. */
async function keyOf(page: PageContext) {
  const company = await visibleCompany(page);
  const keyId = idParam(params(page).keyId);
  if (!company || keyId === null) return null;
  const { keys } = await run(page, 'keys.list', { company: company.id });
  const key = keys.find((k) => k.id === keyId);
  return key ? { company, key } : null;
}

/** What a redirect's `?done=` says on the key's page (revokeKey redirects with `revoked`). */
const DONE_NOTICES: Record<string, TextKey> = { revoked: 'key.revoked' };

/** GET /companies/:id/keys/:keyId; after rollKey, with the new secret. */
export async function keyPage(
  page: PageContext,
  rolled?: OperationResult<'keys.roll'>,
): Promise<FastifyReply> {
  const found = await keyOf(page);
  if (!found) return notFoundPage(page);
  const done = query(page).done;
  const notice =
    done && DONE_NOTICES[done] ? page.t(DONE_NOTICES[done] as TextKey, { id: found.key.id }) : undefined;
  return page.render(
    'key',
    page.t('key.title', { id: found.key.id }),
    { ...found, rolled, can: can(page) },
    { notice },
  );
}

export async function rollKey(page: PageContext): Promise<FastifyReply> {
  const found = await keyOf(page);
  if (!found) return notFoundPage(page);
  const args = { id: found.key.id, grace: form(page).grace };
  return act(page, 'keys.roll', args, (rolled) => keyPage(page, rolled));
}

export async function revokeKey(page: PageContext): Promise<FastifyReply> {
  const found = await keyOf(page);
  if (!found) return notFoundPage(page);
  if (form(page).confirm !== 'yes') {
    return page.render(
      'key',
      page.t('key.title', { id: found.key.id }),
      { ...found, can: can(page) },
      {
        status: 422,
        error: page.t('key.revoke_needs_confirm'),
      },
    );
  }
  return act(page, 'keys.revoke', { id: found.key.id }, () =>
    page.reply.redirect(`/companies/${found.company.id}/keys/${found.key.id}?done=revoked`, 303),
  );
}
