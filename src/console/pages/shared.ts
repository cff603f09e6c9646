// What every page of the console shares: the page's context (its request, reply, person, language
// and renderer, made by src/console/server.ts), the readers of its form, path and query, the
// not-found and refusal answers, and `run`, which runs an operation of the CLI's table with the
// signed-in person as the actor (so a console change is audited as a CLI change is).
import { eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { companies } from '../../db/schema.js';
import type { TextKey, UiLanguage } from '../../i18n/catalog.js';
import { describeError } from '../../i18n/message.js';
import { OperationError } from '../../operations/errors.js';
import { executeOperation, type OperationName, type OperationResult } from '../../operations/index.js';
import type { ConsoleDeps, cookieNames } from '../context.js';
import type { StaffMember } from '../sessions.js';

export interface RenderOptions {
  status?: number;
  notice?: string | undefined;
  error?: string | undefined;
}

export interface PageContext {
  request: FastifyRequest;
  reply: FastifyReply;
  deps: ConsoleDeps;
  lang: UiLanguage;
  t(key: TextKey, params?: Record<string, string | number>): string;
  staff: StaffMember | null;
  cookies: ReturnType<typeof cookieNames>;
  render(view: string, title: string, data?: object, options?: RenderOptions): FastifyReply;
}

type Form = Record<string, string | undefined>;
export const form = (page: PageContext): Form => (page.request.body ?? {}) as Form;
export const params = (page: PageContext) => page.request.params as Record<string, string>;
export const query = (page: PageContext) => page.request.query as Record<string, string | undefined>;

/** A missing thing's page (404); named apart from the API's `notFound` (src/errors.ts). */
export function notFoundPage(page: PageContext): FastifyReply {
  const text = page.t('error.not_found');
  return page.render('message', text, {}, { status: 404, error: text });
}

/** An operation's refusal, in the page's language. */
export function refusalText(page: PageContext, error: OperationError): string {
  return page.t('error.refused', { message: describeError(error, page.t) });
}

/** The operation's refusal, shown on a page of its own (422), never a 500. */
export function refused(page: PageContext, error: unknown): FastifyReply {
  if (!(error instanceof OperationError)) throw error;
  const text = refusalText(page, error);
  return page.render('message', page.t('error.bad_request'), {}, { status: 422, error: text });
}

function actorName(staff: StaffMember): string {
  return `console:${staff.email}`;
}

export function run<N extends OperationName>(
  page: PageContext,
  name: N,
  raw: Record<string, unknown>,
): Promise<OperationResult<N>> {
  const staff = page.staff;
  if (!staff) throw new Error('an operation needs a signed-in person');
  const args = Object.fromEntries(
    Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''),
  );
  return executeOperation(page.deps.setup, name, args, actorName(staff));
}

/**
 * An action: its operation run, then `then` answers with the result; a refusal of the operation
 * is a page of its own (422), never a 500.
 */
export async function act<N extends OperationName>(
  page: PageContext,
  name: N,
  raw: Record<string, unknown>,
  then: (result: OperationResult<N>) => FastifyReply | Promise<FastifyReply>,
): Promise<FastifyReply> {
  let result: OperationResult<N>;
  try {
    result = await run(page, name, raw);
  } catch (error) {
    return refused(page, error);
  }
  return then(result);
}

export const can = (page: PageContext) => ({
  support: page.staff !== null && ['support', 'admin'].includes(page.staff.role),
});

export function idParam(text: string | undefined): number | null {
  return text && /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : null;
}

/** The company of the path, when this person may see it: a partner sees only its own. */
export async function visibleCompany(page: PageContext) {
  const id = idParam(params(page).id);
  if (id === null) return null;
  if (page.staff?.role === 'partner' && page.staff.companyId !== id) return null;
  const [company] = await page.deps.handle.db.select().from(companies).where(eq(companies.id, id));
  return company
    ? {
        id: company.id,
        name: company.name,
        nuit: company.nuit,
        partner_api_enabled: company.partnerApiEnabled,
      }
    : null;
}
