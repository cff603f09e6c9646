// Sign-in, setup of an account and sign-out: the console's own pages, not operations. Sign-in
// checks the password and a one-time code (throttled per e-mail and per address, src/console/
// throttle.ts) and starts a new session; setup is reached by the link of `staff create` or `staff
// reset`, sets the password and enrols the authenticator app.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import { staffAccounts } from '../../db/schema.js';
import type { TextKey } from '../../i18n/catalog.js';
import { tokenDigest } from '../../operations/staff.js';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  newTotpSecret,
  passwordMatches,
  totpQrSvg,
  totpStep,
  totpUri,
} from '../credentials.js';
import { endSession, pruneSessions, type StaffMember, startSession } from '../sessions.js';
import { clearFailures, isLocked, recordFailure, subjectsOf } from '../throttle.js';
import { form, type PageContext, params, query, type RenderOptions } from './shared.js';

/** Where to go after signing in, when it is a path of this console (never another site). */
function safeNext(next: string | undefined): string | null {
  return next && /^\/[A-Za-z0-9/_?=&%.-]*$/.test(next) && !next.startsWith('//') ? next : null;
}

/** A person's first page: a partner's own company, the company list for everyone else. */
function home(staff: StaffMember): string {
  return staff.role === 'partner' ? `/companies/${staff.companyId}` : '/companies';
}

/** GET /login: a signed-in person goes home; anyone else gets the form (keeping where to go next). */
export function loginPage(page: PageContext): FastifyReply {
  if (page.staff) return page.reply.redirect(home(page.staff), 303);
  return page.render('login', page.t('login.title'), { email: '', next: safeNext(query(page).next) ?? '' });
}

/** GET /: a signed-in person's first page. */
export function homeRedirect(page: PageContext): FastifyReply {
  return page.reply.redirect(home(page.staff as StaffMember), 303);
}

/** POST /login: the password and a one-time code; a new session on success. */
export async function login(page: PageContext): Promise<FastifyReply> {
  const body = form(page);
  const email = (body.email ?? '').trim().toLowerCase().slice(0, 254);
  const show = (status: number, key: TextKey) =>
    page.render(
      'login',
      page.t('login.title'),
      { email, next: body.next ?? '' },
      { status, error: page.t(key) },
    );
  const db = page.deps.handle.db;
  const subjects = subjectsOf(email, page.request.ip);
  if (await isLocked(db, subjects)) return show(429, 'login.locked');
  const [account] = email
    ? await db
        .select()
        .from(staffAccounts)
        .where(and(eq(staffAccounts.email, email), isNull(staffAccounts.disabledAt)))
    : [];
  // The same work and the same answer for an unknown e-mail and a wrong password.
  const passwordOk = await passwordMatches(
    account?.passwordHash ?? null,
    (body.password ?? '').slice(0, MAX_PASSWORD_LENGTH),
  );
  const secret = account?.totpSecretSealed ? page.deps.box.open(account.totpSecretSealed) : null;
  const step =
    passwordOk && secret ? await totpStep(secret, body.code ?? '', account?.totpLastStep ?? null) : null;
  if (!account || step === null) {
    await recordFailure(db, subjects);
    return show(401, 'login.failed');
  }
  // The code is used: it is not accepted again (a step is 30 seconds).
  const [used] = await db
    .update(staffAccounts)
    .set({ totpLastStep: step })
    .where(and(eq(staffAccounts.id, account.id), sql`coalesce(${staffAccounts.totpLastStep}, -1) < ${step}`))
    .returning({ id: staffAccounts.id });
  if (!used) {
    await recordFailure(db, subjects);
    return show(401, 'login.failed');
  }
  await clearFailures(db, subjects);
  // A new session id at every login: whatever cookie came with the form is ended, never kept.
  const previous = page.request.cookies[page.cookies.session];
  if (previous) await endSession(db, previous);
  const token = await startSession(db, account.id);
  // Sessions past their limits go now and then (each is refused when used anyway).
  await pruneSessions(db);
  page.reply.setCookie(page.cookies.session, token, page.cookies.options);
  const staff: StaffMember = {
    id: account.id,
    email: account.email,
    name: account.name,
    role: account.role,
    companyId: account.companyId,
  };
  return page.reply.redirect(safeNext(body.next) ?? home(staff), 303);
}

/** POST /logout: the session ends and its cookie goes. */
export async function logout(page: PageContext): Promise<FastifyReply> {
  const token = page.request.cookies[page.cookies.session];
  if (token) await endSession(page.deps.handle.db, token);
  page.reply.clearCookie(page.cookies.session, page.cookies.options);
  return page.render(
    'login',
    page.t('login.title'),
    { email: '', next: '' },
    { notice: page.t('login.ended') },
  );
}

/** The account of the setup link, while the link is valid. */
async function setupAccount(page: PageContext) {
  const token = params(page).token ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const [account] = await page.deps.handle.db
    .select()
    .from(staffAccounts)
    .where(
      and(
        eq(staffAccounts.setupTokenHash, tokenDigest(token)),
        isNull(staffAccounts.disabledAt),
        sql`${staffAccounts.setupExpiresAt} > now()`,
      ),
    );
  return account ?? null;
}

async function renderSetup(
  page: PageContext,
  account: typeof staffAccounts.$inferSelect,
  options: RenderOptions = {},
) {
  const box = page.deps.box;
  let secret = account.totpPendingSealed ? box.open(account.totpPendingSealed) : null;
  if (!secret) {
    secret = newTotpSecret();
    await page.deps.handle.db
      .update(staffAccounts)
      .set({ totpPendingSealed: box.seal(secret) })
      .where(eq(staffAccounts.id, account.id));
  }
  const qr = await totpQrSvg(totpUri(secret, account.email));
  return page.render(
    'setup',
    page.t('setup.title'),
    { token: params(page).token, name: account.name, secret, qr, min: MIN_PASSWORD_LENGTH },
    options,
  );
}

function setupInvalid(page: PageContext) {
  const text = page.t('setup.invalid');
  return page.render('message', page.t('setup.title'), {}, { status: 404, error: text });
}

/** GET /setup/:token: the setup form, while the link is valid. */
export async function setupPage(page: PageContext): Promise<FastifyReply> {
  const account = await setupAccount(page);
  return account ? renderSetup(page, account) : setupInvalid(page);
}

/** POST /setup/:token: sets the password and the authenticator; then the login form. */
export async function completeSetup(page: PageContext): Promise<FastifyReply> {
  const account = await setupAccount(page);
  if (!account) return setupInvalid(page);
  const body = form(page);
  const password = body.password ?? '';
  const problem = (key: TextKey) =>
    renderSetup(page, account, { status: 422, error: page.t(key, { min: MIN_PASSWORD_LENGTH }) });
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
    return problem('setup.too_short');
  if (password !== body.confirm) return problem('setup.mismatch');
  const secret = account.totpPendingSealed ? page.deps.box.open(account.totpPendingSealed) : null;
  const step = secret ? await totpStep(secret, body.code ?? '', null) : null;
  if (!secret || step === null) return problem('setup.bad_code');
  const db = page.deps.handle.db;
  const [done] = await db
    .update(staffAccounts)
    .set({
      passwordHash: await hashPassword(password),
      totpSecretSealed: account.totpPendingSealed,
      totpPendingSealed: null,
      // The enrolment's code is used: the first login needs the next one.
      totpLastStep: step,
      setupTokenHash: null,
      setupExpiresAt: null,
    })
    .where(
      and(eq(staffAccounts.id, account.id), eq(staffAccounts.setupTokenHash, account.setupTokenHash ?? '')),
    )
    .returning({ id: staffAccounts.id });
  if (!done) return setupInvalid(page);
  return page.render(
    'login',
    page.t('login.title'),
    { email: account.email, next: '' },
    { notice: page.t('setup.done') },
  );
}
