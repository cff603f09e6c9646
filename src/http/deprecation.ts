// Deprecation on the wire (docs/site/en/compatibility.md "Deprecation headers"): a route, a query
// parameter or a top-level request field can be marked deprecated here, as data, with its dates.
// A request that USES one is answered as before, plus `Deprecation` (RFC 9745, `@` epoch seconds),
// `Sunset` (RFC 8594, an HTTP date) and `Link: <policy>; rel="deprecation"`, and its request-log
// record names what it used (`bin/invoicing deprecations usage` lists the keys, for support).
// One step of the pipeline (src/http/pipeline.ts), after the body is read; it never refuses.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { API_PREFIX } from '../app-constants.js';
import { stateOf } from './request-state.js';

export interface DeprecatedItem {
  /** The route as the reference names it: `GET /customers/{id}`. */
  route: string;
  /** A query parameter of the route; or */
  query?: string;
  /** a top-level field of its JSON body; neither: the route itself. */
  field?: string;
  /** When it was deprecated, and from when it may stop working (ISO 8601 dates, UTC). */
  deprecatedAt: string;
  sunsetAt: string;
}

/** Nothing in v1 is deprecated. An entry here needs its changelog line and 12 months of notice. */
export const DEPRECATIONS: readonly DeprecatedItem[] = [];

/** The items of one route (`GET /api/v1/partner/customers/:id`), with their header values. */
interface RouteItems {
  route: PreparedItem | null;
  query: Map<string, PreparedItem>;
  field: Map<string, PreparedItem>;
}

interface PreparedItem {
  /** As the request log keeps it: `GET /customers`, `GET /customers?search`, `POST /customers body.email`. */
  name: string;
  deprecation: number;
  sunset: number;
}

export type DeprecationTable = ReadonlyMap<string, RouteItems>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The deprecated items of this app (src/app.ts: DEPRECATIONS, or a test's own). */
    deprecations: DeprecationTable;
  }
}

function dateOf(text: string, what: string): number {
  const time = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(time))
    throw new Error(`deprecation: bad ${what} ${text}`);
  return time;
}

/** The table by route key (method and Fastify template); a malformed entry stops the start. */
export function deprecationTable(items: readonly DeprecatedItem[]): DeprecationTable {
  const table = new Map<string, RouteItems>();
  for (const item of items) {
    const match = /^(GET|POST|PUT) (\/[A-Za-z0-9_/{}-]*)$/.exec(item.route);
    if (!match) throw new Error(`deprecation: bad route ${item.route}`);
    const key = `${match[1]} ${API_PREFIX}${(match[2] as string).replace(/\{([A-Za-z_]+)\}/g, ':$1')}`;
    const prepared: PreparedItem = {
      name: item.query
        ? `${item.route}?${item.query}`
        : item.field
          ? `${item.route} body.${item.field}`
          : item.route,
      deprecation: dateOf(item.deprecatedAt, 'deprecatedAt'),
      sunset: dateOf(item.sunsetAt, 'sunsetAt'),
    };
    const entry = table.get(key) ?? { route: null, query: new Map(), field: new Map() };
    if (item.query) entry.query.set(item.query, prepared);
    else if (item.field) entry.field.set(item.field, prepared);
    else entry.route = prepared;
    table.set(key, entry);
  }
  return table;
}

export function installDeprecations(app: FastifyInstance, items: readonly DeprecatedItem[]): void {
  const table = deprecationTable(items);
  app.decorate('deprecations', table);
  if (table.size > 0) app.addHook('onRoute', (route) => markInSchema(route, table));
}

/**
 * The route's schema says it too (OpenAPI `deprecated: true`, so the reference shows it): the route,
 * or its query parameter. Copies, never the shared schema objects. A body field is announced on the
 * wire and in the changelog only: bodies are shared components.
 */
function markInSchema(route: RouteOptions, table: DeprecationTable): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  for (const method of methods) {
    const entry = table.get(`${method} ${route.url}`);
    if (!entry) continue;
    const schema: Record<string, unknown> = { ...(route.schema ?? {}) };
    if (entry.route) schema.deprecated = true;
    const query = schema.querystring as { properties?: Record<string, object> } | undefined;
    if (entry.query.size > 0 && query?.properties) {
      const properties = { ...query.properties };
      for (const name of entry.query.keys())
        if (properties[name]) properties[name] = { ...properties[name], deprecated: true };
      schema.querystring = { ...query, properties };
    }
    route.schema = schema;
  }
}

/** What this request used of the deprecated items of its route. */
function usedItems(request: FastifyRequest, entry: RouteItems): PreparedItem[] {
  const used: PreparedItem[] = entry.route ? [entry.route] : [];
  const query = request.query as Record<string, unknown> | undefined;
  if (entry.query.size > 0 && query) {
    for (const [name, item] of entry.query) if (Object.hasOwn(query, name)) used.push(item);
  }
  const body = request.body;
  if (entry.field.size > 0 && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    for (const [name, item] of entry.field) if (Object.hasOwn(body, name)) used.push(item);
  }
  return used;
}

/** The pipeline's step: headers and the log's note when the request used a deprecated item. */
export function announceDeprecation(request: FastifyRequest, reply: FastifyReply): void {
  const table = request.server.deprecations;
  if (table.size === 0) return;
  const entry = table.get(`${request.method} ${request.routeOptions.url}`);
  if (!entry) return;
  const used = usedItems(request, entry);
  if (used.length === 0) return;
  // Several items used at once: the earliest dates, so that the partner acts on the nearest one.
  const deprecation = Math.min(...used.map((item) => item.deprecation));
  const sunset = Math.min(...used.map((item) => item.sunset));
  const docs = request.server.config.docsUrl;
  reply.header('Deprecation', `@${Math.floor(deprecation / 1000)}`);
  reply.header('Sunset', new Date(sunset).toUTCString());
  reply.header(
    'Link',
    `<${docs}/pt/compatibilidade#cabecalhos-de-descontinuacao>; rel="deprecation"; type="text/html"; hreflang="pt", <${docs}/en/compatibility#deprecation-headers>; rel="deprecation"; type="text/html"; hreflang="en"`,
  );
  stateOf(request).deprecatedUse = used.map((item) => item.name);
}
