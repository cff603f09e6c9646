// @invoicing/partner-api: the official TypeScript client of the Partner API v1.
export {
  type CallOptions,
  Customers,
  Invoices,
  PartnerApi,
  type PartnerApiOptions,
  Payments,
  Products,
  VERSION,
  type WriteOptions,
} from './client.js';
export { ERROR_CODES, PartnerApiError, PartnerApiNetworkError, type RateLimitInfo } from './errors.js';
export type { FetchFunction, FetchResponse, ResponseInfo, RetryInfo } from './transport.js';
export type * from './types.js';
