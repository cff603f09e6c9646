// The support console's HTTP server: its own port (CONSOLE_PORT), never the API's. Every route is
// a row of src/console/roles.ts and is checked there before its page runs: a person without a
// session is sent to /login (a GET) or refused (a POST); a role below the route's answers 404 for
// a page and 403 for an action. Every state change is a POST whose Origin is this console's and
// whose form carries the CSRF token (`_csrf`, @fastify/csrf-protection: a secret in an HttpOnly
// SameSite=Strict cookie, a token per form). Sessions are server side (src/console/sessions.ts).
// Every answer carries a strict Content-Security-Policy (no inline script, no eval), forbids
// framing and keeps the referrer to this origin.
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { DEFAULT_LANGUAGE, isLanguage, type TextKey, translate, type UiLanguage } from '../i18n/catalog.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { type ConsoleDeps, cookieNames } from './context.js';
import { PAGES, type PageContext } from './pages/index.js';
import { allowed, ROUTES, type RouteRule, refusalStatus } from './roles.js';
import { findSession, type Session } from './sessions.js';
import { renderView } from './views.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession: Session | null;
    consoleLanguage: UiLanguage;
  }
}

function originAllowed(request: FastifyRequest, deps: ConsoleDeps): boolean {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  const expected = new Set([new URL(deps.config.url).origin]);
  // Without CONSOLE_URL: the address the browser used (a session cookie is SameSite=Strict anyway).
  if (!deps.config.urlConfigured) {
    const listening = deps.listeningUrl?.();
    if (listening) expected.add(new URL(listening).origin);
    if (request.headers.host) expected.add(`http://${request.headers.host}`);
  }
  return expected.has(origin);
}

export async function buildConsole(deps: ConsoleDeps): Promise<FastifyInstance> {
  const names = cookieNames(deps.config);
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.logger,
    trustProxy: (deps.trustProxy ?? false) as FastifyServerOptions['trustProxy'],
    bodyLimit: 64 * 1024,
    // The console's own ids; its requests are never in the API's request log.
    requestIdHeader: false,
    return503OnClosing: true,
  });
  app.decorateRequest('consoleSession', null);
  app.decorateRequest('consoleLanguage', DEFAULT_LANGUAGE);
  await app.register(cookie);
  await app.register(formbody);
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: names.csrf,
    cookieOpts: names.options,
    getToken: (request) => (request.body as Record<string, unknown> | undefined)?._csrf as string,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'same-origin');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', 'no-store');
    const query = request.query as Record<string, unknown>;
    const wanted = query.lang ?? request.cookies.console_lang;
    if (isLanguage(wanted)) request.consoleLanguage = wanted;
    if (isLanguage(query.lang)) reply.setCookie('console_lang', query.lang, { ...names.options, path: '/' });
    const token = request.cookies[names.session];
    request.consoleSession = token ? await findSession(deps.handle.db, token) : null;
  });

  const page = (request: FastifyRequest, reply: FastifyReply): PageContext => {
    const lang = request.consoleLanguage;
    const t = (key: TextKey, params?: Record<string, string | number>) => translate(lang, key, params);
    return {
      request,
      reply,
      deps,
      lang,
      t,
      staff: request.consoleSession?.staff ?? null,
      cookies: names,
      render(view, title, data = {}, options = {}) {
        const shared = { lang, t, staff: this.staff, csrf: reply.generateCsrf() };
        const body = view === 'message' ? '' : renderView(view, { ...shared, ...data });
        return reply
          .status(options.status ?? 200)
          .type('text/html; charset=utf-8')
          .send(
            renderView('layout', { ...shared, title, body, notice: options.notice, error: options.error }),
          );
      },
    };
  };

  const refuse = (request: FastifyRequest, reply: FastifyReply, status: 403 | 404, key: TextKey) =>
    page(request, reply).render(
      'message',
      translate(request.consoleLanguage, key),
      {},
      { status, error: translate(request.consoleLanguage, key) },
    );

  app.setNotFoundHandler((request, reply) => refuse(request, reply, 404, 'error.not_found'));
  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN') {
      return refuse(request, reply, 403, 'error.csrf');
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'console page failed');
    const key: TextKey = status >= 500 ? 'error.internal' : 'error.bad_request';
    return page(request, reply).render(
      'message',
      translate(request.consoleLanguage, key),
      {},
      {
        status: status >= 400 && status < 600 ? status : 500,
        error: translate(request.consoleLanguage, key),
      },
    );
  });

  app.get('/assets/console.css', (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(CONSOLE_CSS),
  );
  app.get('/assets/console.js', (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );

  // No icon: an empty answer, not a 404 in every page's console.
  app.get('/favicon.ico', (_request, reply) => reply.status(204).send());

  for (const rule of ROUTES as readonly RouteRule[]) {
    if (rule.url.startsWith('/assets/') || rule.url === '/favicon.ico') continue;
    const handler = PAGES[`${rule.method} ${rule.url}` as keyof typeof PAGES];
    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      const session = request.consoleSession;
      if (rule.need !== 'public') {
        if (!session) {
          if (rule.method === 'GET') {
            const next = encodeURIComponent(request.url);
            return reply.redirect(`/login?next=${next}`, 303);
          }
          return refuse(request, reply, 403, 'error.forbidden');
        }
        if (!allowed(session.staff.role, rule)) {
          const status = refusalStatus(rule);
          return refuse(request, reply, status, status === 404 ? 'error.not_found' : 'error.forbidden');
        }
      }
      if (rule.method === 'POST' && !originAllowed(request, deps)) {
        return refuse(request, reply, 403, 'error.csrf');
      }
    };
    app.route({
      method: rule.method,
      url: rule.url,
      preHandler: rule.method === 'POST' ? [guard, app.csrfProtection] : [guard],
      handler: (request, reply) => handler(page(request, reply)),
    });
  }
  return app;
}
