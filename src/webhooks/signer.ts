// Standard Webhooks signatures (https://www.standardwebhooks.com), made by the `standardwebhooks`
// package that receivers verify with: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed by
// the endpoint's `whsec_` secret. During the 24 hours after a rotation both secrets sign, and the
// header carries both signatures separated by a space; a receiver holding either one verifies.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';
/** Bytes of a new secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;

export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three headers of one attempt: its own timestamp, signed by every secret given. */
export function signedHeaders(
  messageId: string,
  body: string,
  secrets: readonly string[],
  at: Date = new Date(),
): SignedHeaders {
  if (secrets.length === 0) throw new Error('no secret to sign with');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
