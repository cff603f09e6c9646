// A request of the log as the operator sees it (`LoggedRequest`): the row of request_log mapped for
// reading, the route as partners read it (`/customers/{id}`), and the forms an operator may type a
// route or a trace id in. Shared by list.ts and show.ts.
import { API_PREFIX } from '../../app-constants.js';
import type { requestLog } from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';

export interface LoggedRequest {
  request_id: string;
  at: string;
  company_id: number;
  api_key_id: number;
  method: string;
  /** As partners read it: `/customers/{id}`. */
  route: string;
  status: number;
  error_code: string | null;
  idempotency_key: string | null;
  replayed: boolean;
  duration_ms: number;
  client_ip: string;
  /** The W3C trace id of the request (the caller's, when it sent `traceparent`); null with tracing off. */
  trace_id: string | null;
}

export type RequestLogRow = typeof requestLog.$inferSelect;

/** `/api/v1/partner/customers/:id` -> `/customers/{id}`. */
function shownRoute(template: string): string {
  const path = template.startsWith(API_PREFIX) ? template.slice(API_PREFIX.length) : template;
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** What an operator may type (`/customers/{id}`, `customers/:id`, the full path) -> the stored template. */
export function routeTemplate(route: string): string {
  let path = route.trim().replace(/\{([A-Za-z_]+)\}/g, ':$1');
  if (!path.startsWith('/')) path = `/${path}`;
  return path.startsWith(`${API_PREFIX}/`) ? path : `${API_PREFIX}${path}`;
}

/** A row of request_log as the operator reads it, in the context's time zone. */
export function asLoggedRequest(row: RequestLogRow, timeZone: string): LoggedRequest {
  return {
    request_id: row.requestId,
    at: formatTimestamp(row.at, timeZone),
    company_id: row.companyId,
    api_key_id: row.apiKeyId,
    method: row.method,
    route: shownRoute(row.route),
    status: row.status,
    error_code: row.errorCode,
    idempotency_key: row.idempotencyKey,
    replayed: row.replayed,
    duration_ms: Math.round(row.durationUs / 100) / 10,
    client_ip: row.clientIp,
    trace_id: row.traceId,
  };
}

/** A W3C trace id: `requests show` finds the first request of that trace (tracing on). */
export const TRACE_ID = /^[0-9a-f]{32}$/;
