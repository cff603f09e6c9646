// An endpoint as it is stored and as the operator is shown it, the refusal every endpoint action
// may throw, and the read of one endpoint by id that most of them start with. The other files of
// this folder build on this one.
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { webhookEndpoints } from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';
import { english, type Message } from '../../i18n/message.js';
import { ALL_EVENTS } from '../event-types.js';

/** A refusal of the operator's request: a catalog text, its English the message. */
export class WebhookRefusal extends Error {
  override name = 'WebhookRefusal';
  readonly text: Message;

  constructor(text: Message) {
    super(english(text));
    this.text = text;
  }
}

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface EndpointSummary {
  id: number;
  company_id: number;
  url: string;
  /** Event types, or ["all"]. */
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  /** Until when the secret before the last rotation still signs, if it does. */
  previous_secret_valid_until: string | null;
  created_at: string;
}

function eventsShown(events: readonly string[]): string[] {
  return events.includes(ALL_EVENTS) ? ['all'] : [...events];
}

export function summaryOf(row: EndpointRow, timeZone: string, now = new Date()): EndpointSummary {
  const previousValid = row.previousSecretExpiresAt && row.previousSecretExpiresAt > now;
  const shown = (at: Date | null) => (at ? formatTimestamp(at, timeZone) : null);
  return {
    id: row.id,
    company_id: row.companyId,
    url: row.url,
    events: eventsShown(row.events),
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    disabled_at: shown(row.disabledAt),
    previous_secret_valid_until: previousValid ? shown(row.previousSecretExpiresAt) : null,
    created_at: formatTimestamp(row.createdAt, timeZone),
  };
}

export async function requireEndpoint(db: Database, id: number): Promise<EndpointRow> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  if (!row) throw new WebhookRefusal({ key: 'webhook.endpoint_missing', params: { id } });
  return row;
}
