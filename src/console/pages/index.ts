// The console's pages, one handler per row of src/console/roles.ts (the type makes every row have
// one). Reads use the operations' reads or plain queries; every change to companies, keys,
// webhooks and staff is an operation of the CLI's table (src/operations/index.ts), run in this
// process with the staff member as the actor, so it is audited and takes effect as a CLI change
// does. Sign-in, setup and sign-out are the console's own.
//
// This file is the table only. Read shared.ts first (the page's context and the helpers every
// page uses), then the pages by what they serve: account.ts (sign-in, setup, sign-out),
// companies.ts, keys.ts, webhooks.ts, usage.ts, logs.ts (requests and the audit log), staff.ts.
import type { FastifyReply } from 'fastify';
import type { RouteKey } from '../roles.js';
import { completeSetup, homeRedirect, login, loginPage, logout, setupPage } from './account.js';
import { companiesPage, companyPage, setApi } from './companies.js';
import { createKey, keyPage, keysPage, revokeKey, rollKey } from './keys.js';
import { auditPage, requestPage, requestsPage } from './logs.js';
import type { PageContext } from './shared.js';
import { createStaffMember, staffAction, staffPage } from './staff.js';
import { usagePage } from './usage.js';
import { endpointPage, replayWindow, resendDelivery, sendTestEvent, webhooksPage } from './webhooks.js';

// src/console/server.ts builds each page's context.
export type { PageContext } from './shared.js';

type Handler = (page: PageContext) => Promise<FastifyReply> | FastifyReply;

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
