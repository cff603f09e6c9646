// @invoicing/partner-api: the official TypeScript client of the Partner API v1.
export {
  type CallOptions,
  Customers,
  Invoices,
  PartnerApi,
  type PartnerApiOptions,
  Payments,
  Products,
  responseOf,
  VERSION,
  type WriteOptions,
} from './client.js';
export { type DeprecationInfo, deprecationOf } from './deprecation.js';
export { ERROR_CODES, PartnerApiError, PartnerApiNetworkError, type RateLimitInfo } from './errors.js';
export { compactNuit, formatNuit, isValidNuit, nuitCheckDigit } from './nuit.js';
export {
  type EnqueueOptions,
  type EntryError,
  type EntryResult,
  type EntryState,
  type FailedEntry,
  type FlushResult,
  type OfflineQueueOptions,
  type OfflineQueueStatus,
  RefConflictError,
  type RefEntry,
} from './offline/entries.js';
export { StoreKeyMismatchError, StoreLockedError } from './offline/journal.js';
export { OfflineQueue } from './offline/queue.js';
export type { PaceInfo, RateLimitState, RequestKind } from './pacing.js';
export type { FetchFunction, FetchResponse, ResponseInfo, RetryInfo, TraceContext } from './transport.js';
export type * from './types.js';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookFailure,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
