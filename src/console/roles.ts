// Who may do what in the console, declared as data: one row per route, the role it needs. Roles
// rank viewer < support < admin; a partner account sees one company, read-only, and only the
// routes marked `partner`. What a role may not see answers 404 (as a missing thing does); an
// action beyond its role answers 403. The server (src/console/server.ts) installs exactly these
// routes and checks them before any handler runs; test/console/roles.test.ts walks every route
// with every role.
import type { StaffRole } from '../db/schema.js';

export type Need = 'public' | 'viewer' | 'support' | 'admin';

export interface RouteRule {
  method: 'GET' | 'POST';
  /** Fastify's path, e.g. `/companies/:id`. */
  url: string;
  need: Need;
  /** A partner account may use it (reads only), for its own company. */
  partner?: true;
}

export const ROUTES = [
  { method: 'GET', url: '/assets/console.css', need: 'public' },
  { method: 'GET', url: '/assets/console.js', need: 'public' },
  { method: 'GET', url: '/favicon.ico', need: 'public' },
  { method: 'GET', url: '/login', need: 'public' },
  { method: 'POST', url: '/login', need: 'public' },
  { method: 'GET', url: '/setup/:token', need: 'public' },
  { method: 'POST', url: '/setup/:token', need: 'public' },
  // Logout needs a session (a POST form, with its token): without one there is nothing to end.
  { method: 'POST', url: '/logout', need: 'viewer', partner: true },
  { method: 'GET', url: '/', need: 'viewer', partner: true },
  { method: 'GET', url: '/companies', need: 'viewer' },
  { method: 'GET', url: '/companies/:id', need: 'viewer', partner: true },
  { method: 'POST', url: '/companies/:id/api', need: 'support' },
  { method: 'GET', url: '/companies/:id/keys', need: 'viewer', partner: true },
  { method: 'POST', url: '/companies/:id/keys', need: 'support' },
  { method: 'GET', url: '/companies/:id/keys/:keyId', need: 'viewer', partner: true },
  { method: 'POST', url: '/companies/:id/keys/:keyId/roll', need: 'support' },
  { method: 'POST', url: '/companies/:id/keys/:keyId/revoke', need: 'support' },
  { method: 'GET', url: '/companies/:id/webhooks', need: 'viewer', partner: true },
  { method: 'GET', url: '/companies/:id/webhooks/:endpointId', need: 'viewer', partner: true },
  { method: 'POST', url: '/companies/:id/webhooks/resend', need: 'support' },
  { method: 'POST', url: '/companies/:id/webhooks/:endpointId/replay', need: 'support' },
  { method: 'POST', url: '/companies/:id/webhooks/:endpointId/test', need: 'support' },
  { method: 'GET', url: '/usage', need: 'viewer', partner: true },
  { method: 'GET', url: '/requests', need: 'viewer', partner: true },
  { method: 'GET', url: '/requests/:requestId', need: 'viewer', partner: true },
  { method: 'GET', url: '/audit', need: 'viewer' },
  { method: 'GET', url: '/staff', need: 'admin' },
  { method: 'POST', url: '/staff', need: 'admin' },
  { method: 'POST', url: '/staff/:id/disable', need: 'admin' },
  { method: 'POST', url: '/staff/:id/reset', need: 'admin' },
] as const satisfies readonly RouteRule[];

export type ConsoleRoute = (typeof ROUTES)[number];
export type RouteKey = ConsoleRoute extends infer R
  ? R extends { method: infer M extends string; url: infer U extends string }
    ? `${M} ${U}`
    : never
  : never;

const RANK: Record<Exclude<Need, 'public'>, number> = { viewer: 1, support: 2, admin: 3 };

/** Whether a person of `role` may use the route (a partner's company is checked by the page). */
export function allowed(role: StaffRole, rule: RouteRule): boolean {
  if (rule.need === 'public') return true;
  if (role === 'partner') return rule.partner === true && rule.need === 'viewer';
  return RANK[role] >= RANK[rule.need];
}

/** What a refusal answers: a page not to be seen is missing (404), an action beyond the role 403. */
export function refusalStatus(rule: RouteRule): 403 | 404 {
  return rule.method === 'GET' ? 404 : 403;
}
