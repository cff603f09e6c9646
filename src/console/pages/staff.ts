// The console's people (an admin's pages): the list, adding a person (`staff create`) and
// disabling or resetting one (`staff disable`, `staff reset`). Adding or resetting answers with the
// setup link the person opens to choose a password and enrol an authenticator (pages/account.ts).
import type { FastifyReply } from 'fastify';
import { act, form, idParam, notFoundPage, type PageContext, params, run } from './shared.js';

/** GET /staff: the console's people; after a create or a reset, the setup link to hand over. */
export async function staffPage(
  page: PageContext,
  link?: { email: string; url: string },
  notice?: string,
): Promise<FastifyReply> {
  const { staff } = await run(page, 'staff.list', {});
  return page.render('staff', page.t('staff.title'), { staff, link }, { notice });
}

/** This console's address, for the setup links: CONSOLE_URL, or else where it listens. */
function consoleUrl(page: PageContext): string {
  return page.deps.config.urlConfigured
    ? page.deps.config.url
    : (page.deps.listeningUrl?.() ?? page.deps.config.url);
}

export async function createStaffMember(page: PageContext): Promise<FastifyReply> {
  const body = form(page);
  const company = body.role === 'partner' ? body.company : undefined;
  const args = { email: body.email, name: body.name, role: body.role, company };
  return act(page, 'staff.create', args, (person) =>
    staffPage(page, { email: person.email, url: `${consoleUrl(page)}${person.setup_path}` }),
  );
}

/** Disable a person, or reset one (a new setup link: a new password and authenticator). */
export async function staffAction(
  page: PageContext,
  action: 'staff.disable' | 'staff.reset',
): Promise<FastifyReply> {
  const id = idParam(params(page).id);
  if (id === null) return notFoundPage(page);
  return act(page, action, { id }, (result) =>
    'setup_path' in result
      ? staffPage(page, { email: result.email, url: `${consoleUrl(page)}${result.setup_path}` })
      : staffPage(page, undefined, page.t('staff.disabled', { id })),
  );
}
