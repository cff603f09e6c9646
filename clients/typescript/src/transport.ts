// One call to the API, with the retries the contract recommends:
// - retried: 429, 409 idempotency_request_in_flight, every 5xx, and network errors or timeouts;
// - the wait is an exponential backoff with jitter: a random wait between half and all of the base
//   delay, then of 2x, 4x, 8x of it... up to MAX_BACKOFF_MS (so that clients that failed together
//   do not retry together), and never shorter than the answer's Retry-After;
// - the retries stop when the next wait would take the call's waits past `retryBudgetMs` (60 s by
//   default: a database failover of 30-40 s is waited out; at least budget - MAX_BACKOFF_MS = 50 s
//   is always waited), or after `maxRetries`;
// - never retried: any other 4xx, including 409 idempotency_key_reuse;
// - a write is encoded once and carries one Idempotency-Key: every attempt sends the same bytes
//   with the same key, so the API creates the record once and replays its answer to a retry;
// - before every attempt, the pacer (pacing.ts) waits while a rate limit it knows of is exhausted;
// - a redirect is never followed (it would carry the Authorization header elsewhere): a 3xx fails;
// - the caller's trace context (`traceContext`), asked once per call, goes with every attempt as the
//   W3C `traceparent`/`tracestate` headers; a malformed one (or a hook that throws) is not sent.
import { ERROR_CODES, PartnerApiError, PartnerApiNetworkError, type RateLimitInfo } from './errors.js';
import type { Pacer, RequestKind, Ticket } from './pacing.js';
import type { ErrorCode } from './types.js';

/** The part of a fetch Response the client reads. */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** The part of fetch the client calls; the platform's `fetch` fits. */
export type FetchFunction = (
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string;
    signal: AbortSignal;
    /** Always 'manual': a redirect is never followed (it would carry the key elsewhere). */
    redirect: 'manual';
  },
) => Promise<FetchResponse>;

/** The W3C trace context of the caller's current span (e.g. what OpenTelemetry's `propagation.inject` writes). */
export interface TraceContext {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

/** A W3C `traceparent`: version (not ff), trace id, parent id (neither all zeros), flags; lower case. */
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** A `tracestate` fit for a header: printable ASCII, at most 512 characters (W3C). */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/**
 * The trace headers to send for `hook`'s answer: `traceparent` only if well formed, `tracestate`
 * only with it and only if fit for a header. Never throws: tracing never breaks a call.
 */
export function traceHeaders(
  hook: (() => TraceContext | null | undefined) | undefined,
): Record<string, string> {
  if (!hook) return {};
  let context: TraceContext | null | undefined;
  try {
    context = hook();
  } catch {
    return {};
  }
  const traceparent = typeof context?.traceparent === 'string' ? context.traceparent.trim() : '';
  if (!TRACEPARENT.test(traceparent)) return {};
  const tracestate = typeof context?.tracestate === 'string' ? context.tracestate.trim() : '';
  return TRACESTATE.test(tracestate) ? { traceparent, tracestate } : { traceparent };
}

/** The longest backoff wait (a Retry-After may ask for more, up to `maxRetryWaitMs`). */
export const MAX_BACKOFF_MS = 10_000;
/** Defaults of the retries: the budget outlasts a database failover (30-40 s). */
export const DEFAULT_RETRY_BUDGET_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 15;

/** Passed to `onRetry` before each wait. */
export interface RetryInfo {
  method: string;
  path: string;
  /** The attempt that failed (1 for the first request). */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** The failure: an API error (429, 409 in flight, 5xx) or a network error. */
  error: PartnerApiError | PartnerApiNetworkError;
  /** The Idempotency-Key the next attempt resends (writes only). */
  idempotencyKey: string | undefined;
}

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
  retryBaseDelayMs: number;
  maxRetryWaitMs: number;
  /** The most a call waits between its attempts, in total. */
  retryBudgetMs: number;
  fetch: FetchFunction;
  userAgent: string;
  onRetry: ((info: RetryInfo) => void) | undefined;
  /** Asked once per call: the caller's trace context, sent with each of its attempts. */
  traceContext?: (() => TraceContext | null | undefined) | undefined;
  /** Null: no pacing. */
  pacer: Pacer | null;
  /** A number in [0, 1): the jitter of the backoff. */
  random: () => number;
  /** The wait between attempts (tests replace it); default: a timer. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

export interface CallSpec {
  method: 'GET' | 'POST' | 'PUT';
  /** Path under the base URL, e.g. `/customers/12`. */
  path: string;
  query?: Record<string, unknown> | undefined;
  /** Encoded JSON body (writes). */
  body?: string;
  idempotencyKey?: string;
  signal?: AbortSignal | undefined;
}

/** What one call's answer said besides its body (`responseOf(result)`). */
export interface ResponseInfo {
  status: number;
  requestId: string | null;
  /** `Idempotency-Replay: true`: a write answered from the record of an earlier identical request. */
  replayed: boolean;
  /** `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `Retry-After` of the answer. */
  rateLimit: RateLimitInfo | null;
  /** Requests made for this call, retries included. */
  attempts: number;
}

/** A call's decoded body and its own response details. */
export interface CallResult<T> {
  body: T;
  response: ResponseInfo;
}

export class Transport {
  private readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async call<T>(spec: CallSpec): Promise<CallResult<T>> {
    const url = this.baseUrl + spec.path + queryString(spec.query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
      // Pages come compressed (a page of 100 invoices is about 8 KB instead of 65 KB); the
      // platform's fetch decodes them. A fetch given in the options must decode them too.
      'accept-encoding': 'br, gzip',
      'user-agent': this.options.userAgent,
      ...traceHeaders(this.options.traceContext),
    };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (spec.idempotencyKey !== undefined) headers['idempotency-key'] = spec.idempotencyKey;
    const attempts = this.options.maxRetries + 1;
    const kind: RequestKind = spec.method === 'GET' ? 'read' : 'write';

    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      let failure: PartnerApiError | PartnerApiNetworkError;
      let retryAfterMs: number | null = null;
      const ticket = await this.options.pacer?.acquire(kind, spec.signal);
      try {
        const { response, text } = await this.send(url, spec, headers, attempt, ticket);
        const info = responseInfo(response, attempt);
        if (response.status >= 200 && response.status < 300)
          return { body: parseSuccess<T>(response, text, info), response: info };
        const error =
          response.status >= 300 && response.status < 400
            ? redirectError(response, spec, info)
            : apiError(response, text, info);
        if (!retryable(error)) throw error;
        failure = error;
        retryAfterMs =
          info.rateLimit?.retryAfterSeconds != null ? info.rateLimit.retryAfterSeconds * 1000 : null;
      } catch (error) {
        if (!(error instanceof PartnerApiNetworkError)) throw error;
        failure = error;
      }
      if (attempt >= attempts) throw failure;
      const delayMs = Math.max(retryAfterMs ?? 0, this.backoffMs(attempt));
      if (waitedMs + delayMs > this.options.retryBudgetMs) throw failure;
      // A Retry-After longer than the client is willing to wait (e.g. the per-day limit) ends the call.
      if (delayMs > this.options.maxRetryWaitMs) throw failure;
      this.options.onRetry?.({
        method: spec.method,
        path: spec.path,
        attempt,
        delayMs,
        error: failure,
        idempotencyKey: spec.idempotencyKey,
      });
      await (this.options.sleep ?? sleep)(delayMs, spec.signal);
      waitedMs += delayMs;
    }
  }

  /** Base, 2x, 4x, 8x... of the base delay up to MAX_BACKOFF_MS, each a random wait between its half and itself. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.options.retryBaseDelayMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
    return Math.round(ceiling / 2 + (ceiling / 2) * this.options.random());
  }

  /** One attempt: the answer and its whole body, within `timeoutMs`; no answer is a network error. */
  private async send(
    url: string,
    spec: CallSpec,
    headers: Record<string, string>,
    attempt: number,
    ticket: Ticket | undefined,
  ): Promise<{ response: FetchResponse; text: string }> {
    // The pacer learns from the answer's headers as soon as they arrive; no answer, nothing learnt.
    let answered: FetchResponse | null = null;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`no answer within ${this.options.timeoutMs} ms`));
    }, this.options.timeoutMs);
    const onAbort = () => controller.abort(spec.signal?.reason);
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const init: Parameters<FetchFunction>[1] = {
        method: spec.method,
        headers,
        signal: controller.signal,
        redirect: 'manual',
      };
      if (spec.body !== undefined) init.body = spec.body;
      spec.signal?.throwIfAborted();
      const response = await this.options.fetch(url, init);
      answered = response;
      return { response, text: await response.text() };
    } catch (error) {
      // The caller's own abort ends the call as it is, never retried.
      if (spec.signal?.aborted) throw spec.signal.reason;
      const reason = timedOut ? `no answer within ${this.options.timeoutMs} ms` : describe(error);
      throw new PartnerApiNetworkError(`${spec.method} ${spec.path}: ${reason}`, {
        cause: error,
        timedOut,
        attempts: attempt,
      });
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      if (ticket) this.options.pacer?.release(ticket, answered?.headers ?? null);
    }
  }
}

/**
 * The API never redirects; an answer that does (a proxy, a wrong base URL) is not followed, so the
 * key is never sent to another address: the call fails naming where it was sent.
 */
function redirectError(response: FetchResponse, spec: CallSpec, info: ResponseInfo): PartnerApiError {
  const location = response.headers.get('location');
  return new PartnerApiError({
    status: response.status,
    code: null,
    message:
      `HTTP ${response.status}: ${spec.method} ${spec.path} was redirected` +
      `${location ? ` to ${location}` : ''}; the client never follows a redirect (is baseUrl the API's address?)`,
    hint: null,
    docUrl: null,
    requestId: info.requestId,
    rateLimit: info.rateLimit,
    attempts: info.attempts,
  });
}

/** Retried, and for the offline queue not a refusal of the entry: 429, 5xx, 409 in flight. */
export function retryable(error: PartnerApiError): boolean {
  if (error.status === 429 || error.status >= 500) return true;
  return error.status === 409 && error.code === 'idempotency_request_in_flight';
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function integerHeader(response: FetchResponse, name: string): number | null {
  const raw = response.headers.get(name);
  return raw !== null && /^[0-9]+$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

/** Retry-After in seconds: delta-seconds or an HTTP date. */
function retryAfterSeconds(response: FetchResponse): number | null {
  const raw = response.headers.get('retry-after');
  if (raw === null) return null;
  const seconds = integerHeader(response, 'retry-after');
  if (seconds !== null) return seconds;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function responseInfo(response: FetchResponse, attempts: number): ResponseInfo {
  const limit = integerHeader(response, 'x-ratelimit-limit');
  const remaining = integerHeader(response, 'x-ratelimit-remaining');
  const retryAfter = retryAfterSeconds(response);
  const rateLimit =
    limit === null && remaining === null && retryAfter === null
      ? null
      : { limit, remaining, retryAfterSeconds: retryAfter };
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    replayed: response.headers.get('idempotency-replay') === 'true',
    rateLimit,
    attempts,
  };
}

function parseSuccess<T>(response: FetchResponse, text: string, info: ResponseInfo): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new PartnerApiError({
      status: response.status,
      code: null,
      message: `HTTP ${response.status} with a body that is not JSON`,
      hint: null,
      docUrl: null,
      requestId: info.requestId,
      rateLimit: info.rateLimit,
      attempts: info.attempts,
    });
  }
}

interface Envelope {
  error: {
    code: string;
    message: string;
    hint?: string;
    doc_url?: string;
    request_id?: string;
    errors?: Record<string, string[]>;
  };
}

function envelopeOf(text: string): Envelope | null {
  try {
    const body = JSON.parse(text) as Partial<Envelope> | null;
    const error = body?.error;
    return error && typeof error.code === 'string' && typeof error.message === 'string'
      ? (body as Envelope)
      : null;
  } catch {
    return null;
  }
}

function apiError(response: FetchResponse, text: string, info: ResponseInfo): PartnerApiError {
  const envelope = envelopeOf(text);
  const known = envelope && (ERROR_CODES as readonly string[]).includes(envelope.error.code);
  if (!envelope || !known) {
    return new PartnerApiError({
      status: response.status,
      code: null,
      message: envelope?.error.message ?? `HTTP ${response.status}`,
      hint: null,
      docUrl: null,
      requestId: info.requestId,
      rateLimit: info.rateLimit,
      attempts: info.attempts,
    });
  }
  const { error } = envelope;
  return new PartnerApiError({
    status: response.status,
    code: error.code as ErrorCode,
    message: error.message,
    hint: error.hint ?? null,
    docUrl: error.doc_url ?? null,
    requestId: error.request_id ?? info.requestId,
    ...(error.errors ? { errors: error.errors } : {}),
    rateLimit: info.rateLimit,
    attempts: info.attempts,
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
