// Webhook endpoints: a company's URL, the event types it wants, its signing secret. Set up by the
// operator (bin/invoicing webhooks ...); the partner API itself has no route for them.
// Times are shown in the context's time zone (TZ_NAME) with their offset, like everywhere else.
//
// The parts, in the order to read them (each imports only the first, and this file re-exports
// what the rest of the service uses):
//   endpoint.ts      the stored row and its summary, the refusal, one endpoint read by id
//   changes.ts       create, update, enable and disable (the URL checked), the event list read
//   secrets.ts       rotating the secret, and the secrets that sign now
//   listing.ts       the company's endpoints with their health (`webhooks list`)
//   delivery-log.ts  one endpoint's attempts and waiting deliveries (`webhooks deliveries`)
//   resend.ts        an event, or a window of events, sent again (`webhooks resend`)
export {
  createEndpoint,
  disableAfterFailures,
  parseEventList,
  setEndpointEnabled,
  updateEndpoint,
} from './changes.js';
export { type DeliveryLogRow, deliveryLog } from './delivery-log.js';
export { type EndpointSummary, requireEndpoint, WebhookRefusal } from './endpoint.js';
export { type EndpointHealth, listEndpoints } from './listing.js';
export { MAX_RESEND_WINDOW, resendEvent, resendWindow, type WindowResend } from './resend.js';
export { PREVIOUS_SECRET_HOURS, rotateSecret, signingSecrets } from './secrets.js';
