// PartnerApi: one object per partner key, with a resource per collection.
import { type DeprecationInfo, watchDeprecations } from './deprecation.js';
import { DECIMAL_FIELDS, encodeJson, type JsonPath } from './json.js';
import { type PaceInfo, Pacer, type RateLimitState } from './pacing.js';
import {
  type CallResult,
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_BUDGET_MS,
  type FetchFunction,
  type ResponseInfo,
  type RetryInfo,
  type TraceContext,
  Transport,
} from './transport.js';
import type {
  Customer,
  CustomerCreate,
  CustomerListQuery,
  CustomerUpdate,
  Invoice,
  InvoiceCreate,
  InvoiceListQuery,
  InvoiceSummary,
  Page,
  Payment,
  PaymentListQuery,
  Ping,
  Product,
  ProductCreate,
  ProductListQuery,
  ProductUpdate,
} from './types.js';

export const VERSION = '1.0.0';

export interface PartnerApiOptions {
  /** `svc_sk_live_...` (reads and writes) or `svc_sk_test_...` (reads only). */
  apiKey: string;
  /** The API's base address, ending in `/api/v1/partner`. */
  baseUrl: string;
  /** Retries after the first attempt at most (default 15); `retryBudgetMs` usually ends them first. */
  maxRetries?: number;
  /** Longest wait for one attempt's whole answer, in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** First backoff wait; then 2x, 4x, 8x... up to 10 s, never shorter than a Retry-After (default 1000 ms). */
  retryBaseDelayMs?: number;
  /**
   * The most a call waits between its attempts in total (default 60 000 ms): a retry whose wait
   * would go past it is not made. At least 50 s is waited, so a database failover is outlasted.
   */
  retryBudgetMs?: number;
  /** A Retry-After longer than this ends the call instead of waiting (default 60 000 ms). */
  maxRetryWaitMs?: number;
  /** The fetch to use (default: the platform's). It must decode brotli and gzip answers, as the platform's does. */
  fetch?: FetchFunction;
  /** Called before each wait for a retry (for logs or metrics). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Wait before a request that a rate limit announced by the API (RateLimit headers) would refuse,
   * instead of meeting a 429 (default true). Shared by every call of this object.
   */
  pacing?: boolean;
  /** Called before each such wait. */
  onPace?: (info: PaceInfo) => void;
  /**
   * Called, once per call site, when the API answers that the call uses something deprecated
   * (`Deprecation`/`Sunset` headers). Default: a process warning (DeprecationWarning).
   */
  onDeprecation?: (info: DeprecationInfo) => void;
  /**
   * Asked once per call: the trace context of your current span, sent with each attempt as the W3C
   * `traceparent` (and `tracestate`) headers, so that the API's spans join your trace. With
   * OpenTelemetry: `() => { const c = {}; propagation.inject(context.active(), c); return c; }`.
   * A malformed value is not sent (and never throws).
   */
  traceContext?: () => TraceContext | null | undefined;
}

/** Options of a read. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of a write (POST, PUT). */
export interface WriteOptions extends CallOptions {
  /**
   * 8 to 191 letters, digits, `.`, `_`, `:`, `-`. Default: a fresh UUID v4 per call. Give your own
   * (e.g. your order number) to make a write safe across restarts of your program.
   */
  idempotencyKey?: string;
}

type Id = number | string;

// Each call's own response details, keyed by the object the call returned: concurrent calls never
// see each other's (no "last response" shared by the whole client).
const RESPONSES = new WeakMap<object, ResponseInfo>();

/**
 * The response details (status, request id, replay, rate-limit headers, attempts) of the call
 * that returned `result`: a resource, a page of a list, or a ping. Undefined for other objects
 * (e.g. the items that `listAll` yields).
 */
export function responseOf(result: object): ResponseInfo | undefined {
  return RESPONSES.get(result);
}

function remember<T>(result: CallResult<T>): T {
  if (typeof result.body === 'object' && result.body !== null) RESPONSES.set(result.body, result.response);
  return result.body;
}

/** The `data` of a call's body, remembered with the call's response details. */
function data<T>(result: CallResult<{ data: T }>): T {
  return remember({ body: result.body.data, response: result.response });
}

export class PartnerApi {
  readonly customers: Customers;
  readonly products: Products;
  readonly invoices: Invoices;
  readonly payments: Payments;
  private readonly transport: Transport;
  private readonly pacer: Pacer | null;

  constructor(options: PartnerApiOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey === '')
      throw new TypeError('apiKey is required');
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
      throw new TypeError('baseUrl must be an http(s) address ending in /api/v1/partner');
    }
    const platform = globalThis as { fetch?: FetchFunction };
    if (!options.fetch && typeof platform.fetch !== 'function') {
      throw new TypeError('no fetch available: use Node 20+ or pass options.fetch');
    }
    const maxRetryWaitMs = nonNegative('maxRetryWaitMs', options.maxRetryWaitMs, 60_000);
    this.pacer = options.pacing === false ? null : new Pacer(maxRetryWaitMs, options.onPace);
    this.transport = new Transport({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      maxRetries: nonNegative('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES),
      timeoutMs: nonNegative('timeoutMs', options.timeoutMs, 30_000),
      retryBaseDelayMs: nonNegative('retryBaseDelayMs', options.retryBaseDelayMs, 1000),
      maxRetryWaitMs,
      retryBudgetMs: nonNegative('retryBudgetMs', options.retryBudgetMs, DEFAULT_RETRY_BUDGET_MS),
      // The platform's fetch is looked up on each call, so a fetch installed later is used too.
      fetch: watchDeprecations(
        options.fetch ?? ((url, init) => platform.fetch!(url, init)),
        options.baseUrl,
        options.onDeprecation,
      ),
      userAgent: `invoicing-partner-api-typescript/${VERSION}`,
      onRetry: options.onRetry,
      traceContext: options.traceContext,
      pacer: this.pacer,
      random: Math.random,
    });
    this.customers = new Customers(this.transport);
    this.products = new Products(this.transport);
    this.invoices = new Invoices(this.transport);
    this.payments = new Payments(this.transport);
  }

  /** The key's company, mode and scopes: a cheap check that the key works. */
  async ping(options: CallOptions = {}): Promise<Ping> {
    return data(
      await this.transport.call<{ data: Ping }>({ method: 'GET', path: '/ping', signal: options.signal }),
    );
  }

  /**
   * One write of a body already encoded, with its key, through this client's transport (its
   * retries, pacing and deprecation report): the offline queue's way in.
   * @internal
   */
  async send<T>(method: 'POST' | 'PUT', path: string, body: string, idempotencyKey: string): Promise<T> {
    return (await this.transport.call<T>({ method, path, body, idempotencyKey })).body;
  }

  /**
   * Milliseconds until `writes` more writes fit in every write limit this client has learnt (0 for
   * none; null while no write limit is known): the offline queue's estimate.
   * @internal
   */
  writesFitInMs(writes: number): number | null {
    if (writes === 0) return 0;
    let longest: number | null = null;
    for (const limit of this.rateLimits()) {
      if (!limit.appliesTo.includes('write') || !limit.quota || !limit.windowSeconds) continue;
      const beyond = writes - Math.max(0, limit.remaining ?? limit.quota);
      const windows = (Math.ceil(beyond / limit.quota) - 1) * limit.windowSeconds * 1000;
      longest = Math.max(longest ?? 0, beyond <= 0 ? 0 : (limit.resetInMs ?? 0) + windows);
    }
    return longest;
  }

  /** The rate limits this client has learnt from the API's RateLimit headers, and what is left of each. */
  rateLimits(): RateLimitState[] {
    return this.pacer?.snapshot() ?? [];
  }
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a number >= 0`);
  return value;
}

function idPath(collection: string, id: Id): string {
  return `/${collection}/${encodeURIComponent(String(id))}`;
}

/** Reads of a collection: one page, every item, one item. */
class Collection<Item, One, Query extends object> {
  constructor(
    protected readonly transport: Transport,
    protected readonly collection: string,
  ) {}

  /** One page, with its `pagination`. */
  async list(query?: Query, options: CallOptions = {}): Promise<Page<Item>> {
    return remember(
      await this.transport.call<Page<Item>>({
        method: 'GET',
        path: `/${this.collection}`,
        query: query as Record<string, unknown> | undefined,
        signal: options.signal,
      }),
    );
  }

  /**
   * Every item, page by page until `current_page` equals `last_page`: `per_page` items a page
   * (default 100, the most the API gives).
   */
  async *listAll(query?: Omit<Query, 'page'>, options: CallOptions = {}): AsyncGenerator<Item> {
    const perPage = (query as { per_page?: number } | undefined)?.per_page ?? 100;
    for (let page = 1; ; page++) {
      const result = await this.list({ ...query, page, per_page: perPage } as Query, options);
      yield* result.data;
      const { current_page, last_page } = result.pagination;
      if (current_page >= last_page || result.data.length === 0) return;
    }
  }

  async get(id: Id, options: CallOptions = {}): Promise<One> {
    return data(
      await this.transport.call<{ data: One }>({
        method: 'GET',
        path: idPath(this.collection, id),
        signal: options.signal,
      }),
    );
  }

  /** A write: the body is encoded once; every attempt resends these bytes with this key. */
  protected async write<T>(
    method: 'POST' | 'PUT',
    path: string,
    body: object,
    decimals: (path: JsonPath) => boolean,
    options: WriteOptions,
  ): Promise<T> {
    const encoded = encodeJson(body, decimals);
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    return data(
      await this.transport.call<{ data: T }>({
        method,
        path,
        body: encoded,
        idempotencyKey,
        signal: options.signal,
      }),
    );
  }
}

export class Customers extends Collection<Customer, Customer, CustomerListQuery> {
  constructor(transport: Transport) {
    super(transport, 'customers');
  }

  create(body: CustomerCreate, options: WriteOptions = {}): Promise<Customer> {
    return this.write('POST', '/customers', body, DECIMAL_FIELDS.none, options);
  }

  /** Changes only the fields sent. */
  update(id: Id, body: CustomerUpdate, options: WriteOptions = {}): Promise<Customer> {
    return this.write('PUT', idPath('customers', id), body, DECIMAL_FIELDS.none, options);
  }
}

export class Products extends Collection<Product, Product, ProductListQuery> {
  constructor(transport: Transport) {
    super(transport, 'products');
  }

  /** `price` and `pos_price` are decimal strings ("1250.50"). */
  create(body: ProductCreate, options: WriteOptions = {}): Promise<Product> {
    return this.write('POST', '/products', body, DECIMAL_FIELDS.product, options);
  }

  /** Needs name, type, inventory and price; optional fields left out keep their value, null clears them. */
  update(id: Id, body: ProductUpdate, options: WriteOptions = {}): Promise<Product> {
    return this.write('PUT', idPath('products', id), body, DECIMAL_FIELDS.product, options);
  }
}

export class Invoices extends Collection<InvoiceSummary, Invoice, InvoiceListQuery> {
  constructor(transport: Transport) {
    super(transport, 'invoices');
  }

  /** Always a draft; each line's `price` is a decimal string. */
  create(body: InvoiceCreate, options: WriteOptions = {}): Promise<Invoice> {
    return this.write('POST', '/invoices', body, DECIMAL_FIELDS.invoice, options);
  }
}

export class Payments extends Collection<Payment, Payment, PaymentListQuery> {
  constructor(transport: Transport) {
    super(transport, 'payments');
  }
}
