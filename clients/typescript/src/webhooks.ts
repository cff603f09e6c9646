// Verifying the service's webhook deliveries (Standard Webhooks, https://www.standardwebhooks.com),
// with the platform's Web Crypto and nothing else:
// - the signed content is `{webhook-id}.{webhook-timestamp}.{raw body}`, HMAC-SHA256 keyed with the
//   base64 bytes of the secret after `whsec_`;
// - `webhook-signature` holds one or more `v1,<base64>` entries separated by spaces (after a secret
//   rotation the service signs with the new and the old secret for 24 hours): one match is enough;
// - you may pass several secrets (yours during your own switch-over): one match with any is enough;
// - a timestamp more than `toleranceSeconds` (default 300) away from your clock is refused, so an
//   old delivery replayed by someone else is refused.
import type { WebhookCause } from './types.js';

/** A verified delivery's body. */
export interface WebhookEvent<T = unknown> {
  /** `evt_...`, also in `webhook-id`: the same on every retry and resend, so keep it to drop repeats. */
  id: string;
  /** e.g. `invoice.paid`. */
  type: string;
  created_at: string;
  /** The resource as the API's single read returned it at the change (money as decimal strings). */
  data: T;
  /** Who caused the event (the docs' webhooks page): compare it with your writes to drop their echoes. */
  cause: WebhookCause;
}

export interface VerifyWebhookOptions {
  /** Largest distance between `webhook-timestamp` and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** "Now", for tests (default: the clock). */
  now?: Date;
}

/** Request headers: a fetch `Headers`, or an object such as Node's `req.headers`. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

export type WebhookFailure = 'missing_header' | 'timestamp' | 'signature' | 'payload';

/** The delivery is not one the service made with your secret (or is too old, or malformed). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 300;

function header(headers: WebhookHeaders, name: string): string | null {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name);
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value.join(' ') : (value ?? null);
  }
  return null;
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new TypeError('a webhook secret is whsec_ and base64');
  return Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Checks a delivery and returns its event. `payload` is the raw body exactly as received (before
 * any JSON parsing); `secret` is your `whsec_...` secret, or several of them. Throws
 * `WebhookVerificationError` when the delivery must not be trusted.
 */
export async function verifyWebhook<T = unknown>(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<T>> {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new TypeError('no webhook secret given');
  const keys = secrets.map(secretBytes);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing_header',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  }
  if (!/^[0-9]+$/.test(timestamp))
    throw new WebhookVerificationError('timestamp', 'webhook-timestamp is not a number');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp',
      `webhook-timestamp is more than ${tolerance} s away from now`,
    );
  }
  const body = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  const candidates = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => base64Bytes(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== null);
  let matched = false;
  for (const key of keys) {
    const hmac = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'verify',
    ]);
    // subtle.verify compares in constant time.
    for (const candidate of candidates) {
      if (await crypto.subtle.verify('HMAC', hmac, candidate, signed)) matched = true;
    }
  }
  if (!matched) throw new WebhookVerificationError('signature', 'no webhook-signature matches the secret');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError('payload', 'the signed body is not JSON');
  }
}
