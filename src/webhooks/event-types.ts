// The event types partners can subscribe to (docs/webhooks.md). No imports: the command line's
// help reads this list without loading anything else.

export const EVENT_TYPES = [
  'invoice.created',
  'invoice.issued',
  'invoice.partially_paid',
  'invoice.paid',
  'invoice.cancelled',
  'payment.created',
  'customer.created',
  'customer.updated',
  'product.created',
  'product.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Sent by `webhooks test` to one endpoint only, whatever it subscribes to; never retried. */
export const PING_EVENT = 'ping';

/** Stored in an endpoint's event list for "every type, also those added later". */
export const ALL_EVENTS = '*';

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The families of types (`invoice`, `payment`, ...): `invoice.*` subscribes to every `invoice.` type. */
export const EVENT_FAMILIES = [...new Set(EVENT_TYPES.map((type) => type.split('.')[0] as string))];

/** `invoice.*` for a known family: every type of it, also those added later. */
export function isEventFamilyPattern(value: string): boolean {
  return value.endsWith('.*') && EVENT_FAMILIES.includes(value.slice(0, -2));
}
