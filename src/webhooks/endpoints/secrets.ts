// An endpoint's signing secrets. The secret is returned when the endpoint is created or its secret
// rotated, never again. Rotating keeps the previous secret signing for 24 hours (both signatures
// are sent), so the partner can switch without losing a delivery; a second rotation within that
// time drops the oldest secret.
import { eq, sql } from 'drizzle-orm';
import type { ActingContext } from '../../context.js';
import { webhookEndpoints } from '../../db/schema.js';
import { formatTimestamp } from '../../format.js';
import { newSecret } from '../signer.js';
import { type EndpointRow, WebhookRefusal } from './endpoint.js';

export const PREVIOUS_SECRET_HOURS = 24;

export async function rotateSecret(
  { db, timeZone }: ActingContext,
  id: number,
): Promise<{ id: number; secret: string; previous_secret_valid_until: string }> {
  const secret = newSecret();
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      previousSecret: sql`${webhookEndpoints.secret}`,
      previousSecretExpiresAt: sql`now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
      secret,
      updatedAt: sql`now()`,
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  if (!row?.previousSecretExpiresAt)
    throw new WebhookRefusal({ key: 'webhook.endpoint_missing', params: { id } });
  return {
    id: row.id,
    secret,
    previous_secret_valid_until: formatTimestamp(row.previousSecretExpiresAt, timeZone),
  };
}

/** The secrets that sign now: the current one, and the previous one during its 24 hours. */
export function signingSecrets(
  endpoint: Pick<EndpointRow, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now = new Date(),
): string[] {
  const previous =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now
      ? [endpoint.previousSecret]
      : [];
  return [endpoint.secret, ...previous];
}
