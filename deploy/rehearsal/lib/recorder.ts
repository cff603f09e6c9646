// Every HTTP request the load makes, with its outcome and latency. The official client is given a
// fetch that times each attempt (first byte sent to last byte of the body) and classifies what came
// back, so a call the client retried shows as several requests, each with its own outcome: a
// partner without retries would have seen each failure.
import { writeFileSync } from 'node:fs';
import type { FetchFunction, FetchResponse } from '../../../clients/typescript/src/index.js';
import { now } from './progress.js';

export interface RequestRecord {
  /** Start, in ms on the rehearsal's clock (progress.ts). */
  at: number;
  ms: number;
  /** e.g. `GET /customers/{id}` */
  route: string;
  status: number;
  /**
   * `ok`, or the kind of failure: `503 from HAProxy`, `500 api (generic)`,
   * `409 idempotency_request_in_flight`, `network ECONNRESET`...; a 503 without `Retry-After` ends
   * in ` without Retry-After`.
   */
  outcome: string;
}

const API_PREFIX = '/api/v1/partner';
const HAPROXY_503 = '{"statusCode":503,"error":"Service Unavailable","message":"Service Unavailable"}';

export function routeOf(method: string, url: string): string {
  const { pathname } = new URL(url);
  const path = pathname.startsWith(API_PREFIX) ? pathname.slice(API_PREFIX.length) : pathname;
  return `${method} ${path.replace(/\/[0-9]+(?=\/|$)/g, '/{id}')}`;
}

function failureOfAnswer(status: number, text: string, requestId: string | null): string {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    if (typeof code === 'string') return `${status} ${code}`;
  } catch {
    // not the API's envelope
  }
  // HAProxy's own answers are small HTML pages; the API's generic answers (500, 503 busy) carry
  // X-Request-Id; an answer with neither came from the server outside the API's routes (e.g. the
  // framework's 503 to a request that arrives while it closes).
  if (text.trimStart().startsWith('<html')) return `${status} from HAProxy`;
  // deploy/haproxy/haproxy.cfg answers the framework's generic 503 itself when no instance is
  // ready (http-error): the same body, but no X-Request-Id, since no instance saw the request.
  if (!requestId && text === HAPROXY_503) return `${status} from HAProxy`;
  return `${status} ${requestId ? 'api (generic)' : 'bare, no X-Request-Id'}`;
}

function failureOfError(error: unknown, timedOut: boolean): string {
  if (timedOut) return 'network timeout';
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ABORT_ERR') return `network ${code}`;
    current = (current as { cause?: unknown }).cause;
  }
  return `network ${(error as Error).message ?? 'error'}`;
}

export const WITHOUT_RETRY_AFTER = ' without Retry-After';

/**
 * Whether a failure is one the service promises a retry will get past (issue 39): a cut or refused
 * connection, 429, 409 idempotency_request_in_flight, and 503 with `Retry-After`. Never a 500 (an
 * internal error), nor another 5xx or a 503 without `Retry-After`.
 */
export function isRetryable(outcome: string): boolean {
  if (outcome === 'ok') return true;
  if (outcome.startsWith('network ')) return true;
  if (outcome === '409 idempotency_request_in_flight') return true;
  const status = Number(outcome.slice(0, 3));
  if (status === 429) return true;
  return status === 503 && !outcome.endsWith(WITHOUT_RETRY_AFTER);
}

export class Recorder {
  readonly records: RequestRecord[] = [];

  private add(record: RequestRecord): void {
    this.records.push(record);
  }

  /** One JSON line per request, for looking closer after a run. */
  save(file: string): void {
    writeFileSync(file, this.records.map((record) => JSON.stringify(record)).join('\n'));
  }

  /** A fetch for the official client that records each attempt. */
  fetch(): FetchFunction {
    return async (url, init) => {
      const route = routeOf(init.method, url);
      const at = now();
      try {
        const response = await fetch(url, init);
        const text = await response.text();
        const ms = now() - at;
        const ok = response.status >= 200 && response.status < 300;
        this.add({
          at,
          ms,
          route,
          status: response.status,
          outcome: ok
            ? 'ok'
            : `${failureOfAnswer(response.status, text, response.headers.get('x-request-id'))}${
                response.status === 503 && !response.headers.get('retry-after') ? WITHOUT_RETRY_AFTER : ''
              }`,
        });
        const answer: FetchResponse = {
          status: response.status,
          headers: response.headers,
          text: async () => text,
        };
        return answer;
      } catch (error) {
        const timedOut = init.signal.aborted;
        this.add({ at, ms: now() - at, route, status: 0, outcome: failureOfError(error, timedOut) });
        throw error;
      }
    };
  }
}
