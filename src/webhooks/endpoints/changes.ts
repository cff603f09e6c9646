// Creating an endpoint and changing it: what it receives (the event list read here), where (its
// URL checked like a new one), and whether it is enabled, by the operator or by the worker after a
// delivery's last failed attempt. Enabling re-checks the URL (the addresses behind a name may have
// changed).
import { and, eq, sql } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import type { Database } from '../../db/client.js';
import { webhookEndpoints } from '../../db/schema.js';
import {
  ALL_EVENTS,
  EVENT_FAMILIES,
  EVENT_TYPES,
  isEventFamilyPattern,
  isEventType,
} from '../event-types.js';
import { newSecret } from '../signer.js';
import { checkEndpointUrl, type Resolver, systemResolver, type UrlPolicy } from '../url-safety.js';
import { type EndpointSummary, requireEndpoint, summaryOf, WebhookRefusal } from './endpoint.js';

/**
 * "all" (or nothing) -> every type; otherwise a comma-separated list of known types and families
 * (`invoice.*`: every invoice type, also those added later), stored as given.
 */
export function parseEventList(raw: string | readonly string[] | undefined): string[] {
  const list = (typeof raw === 'string' ? raw.split(',') : (raw ?? ['all']))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (list.length === 0 || list.includes('all') || list.includes(ALL_EVENTS)) return [ALL_EVENTS];
  const unknown = list.filter((entry) => !isEventType(entry) && !isEventFamilyPattern(entry));
  if (unknown.length > 0) {
    throw new WebhookRefusal({
      key: 'webhook.unknown_events',
      params: {
        unknown: unknown.join(', '),
        families: EVENT_FAMILIES.map((family) => `${family}.*`).join(', '),
        types: EVENT_TYPES.join(', '),
      },
    });
  }
  return [...new Set(list)];
}

async function checkedUrl(raw: string, policy: UrlPolicy, resolver: Resolver): Promise<string> {
  return (await checkEndpointUrl(raw, policy, resolver)).toString();
}

export async function createEndpoint(
  { db, timeZone }: ActingContext,
  input: { companyId: number; url: string; events?: string | readonly string[] },
  policy: UrlPolicy,
  resolver: Resolver = systemResolver,
): Promise<EndpointSummary & { secret: string }> {
  const events = parseEventList(input.events);
  const url = await checkedUrl(input.url, policy, resolver);
  const secret = newSecret();
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ companyId: input.companyId, url, events, secret })
    .returning();
  if (!row) throw new Error('endpoint insert returned no row');
  return { ...summaryOf(row, timeZone), secret };
}

export async function setEndpointEnabled(
  { db, timeZone }: ActingContext,
  id: number,
  enabled: boolean,
  policy: UrlPolicy,
  resolver: Resolver = systemResolver,
): Promise<EndpointSummary> {
  const endpoint = await requireEndpoint(db, id);
  if (enabled) await checkedUrl(endpoint.url, policy, resolver);
  const [row] = await db
    .update(webhookEndpoints)
    .set(
      enabled
        ? { enabled: true, disabledReason: null, disabledAt: null, updatedAt: sql`now()` }
        : {
            enabled: false,
            disabledReason: 'disabled by the operator',
            disabledAt: sql`now()`,
            updatedAt: sql`now()`,
          },
    )
    .where(eq(webhookEndpoints.id, id))
    .returning();
  if (!row) throw new WebhookRefusal({ key: 'webhook.endpoint_missing', params: { id } });
  return summaryOf(row, timeZone);
}

/**
 * Changes what an endpoint receives (`events`) and where (`url`, checked like a new one). Events
 * recorded from now on follow the new subscription; deliveries already queued still go.
 */
export async function updateEndpoint(
  { db, timeZone }: ActingContext,
  id: number,
  changes: { events?: string | readonly string[]; url?: string },
  policy: UrlPolicy,
  resolver: Resolver = systemResolver,
): Promise<EndpointSummary> {
  await requireEndpoint(db, id);
  const events = changes.events === undefined ? undefined : parseEventList(changes.events);
  const url = changes.url === undefined ? undefined : await checkedUrl(changes.url, policy, resolver);
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      ...(events ? { events } : {}),
      ...(url ? { url } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  if (!row) throw new WebhookRefusal({ key: 'webhook.endpoint_missing', params: { id } });
  return summaryOf(row, timeZone);
}

/** Called by the worker after a delivery's last failed attempt. True if it was enabled until now. */
export async function disableAfterFailures(db: Database, id: number, reason: string): Promise<boolean> {
  const rows = await db
    .update(webhookEndpoints)
    .set({
      enabled: false,
      disabledReason: reason,
      disabledAt: sql`clock_timestamp()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.enabled, true)))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}
