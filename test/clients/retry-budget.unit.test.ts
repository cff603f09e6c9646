// The TypeScript client's retry budget (issue 31): by default a call keeps retrying retryable
// answers (503 with Retry-After, as the API answers while its database fails over) for at least
// 45 s of waits, whatever the jitter draws, and never waits more than the budget; each wait is an
// exponential backoff with jitter, capped, and never shorter than Retry-After.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_BUDGET_MS,
  type FetchFunction,
  MAX_BACKOFF_MS,
  Transport,
} from '../../clients/typescript/src/transport.js';

/** A transport with the client's defaults whose every answer is `status` (and Retry-After), and whose waits are recorded, not waited. */
function failingTransport(options: {
  status?: number;
  retryAfter?: string;
  random: () => number;
  budgetMs?: number;
}) {
  const waits: number[] = [];
  let requests = 0;
  const fetch: FetchFunction = async () => {
    requests++;
    const headers = new Map<string, string>();
    if (options.retryAfter) headers.set('retry-after', options.retryAfter);
    return {
      status: options.status ?? 503,
      headers: { get: (name: string) => headers.get(name.toLowerCase()) ?? null },
      text: async () => '{"statusCode":503,"error":"Service Unavailable","message":"Service Unavailable"}',
    };
  };
  const transport = new Transport({
    apiKey: 'svc_sk_live_x',
    baseUrl: 'http://api.test/api/v1/partner',
    maxRetries: DEFAULT_MAX_RETRIES,
    timeoutMs: 1000,
    retryBaseDelayMs: 1000,
    maxRetryWaitMs: 60_000,
    retryBudgetMs: options.budgetMs ?? DEFAULT_RETRY_BUDGET_MS,
    fetch,
    userAgent: 'test',
    onRetry: undefined,
    pacer: null,
    random: options.random,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { transport, waits, requests: () => requests };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

describe('TypeScript client: the retry budget outlasts a database failover', () => {
  for (const [draw, random] of [
    ['the shortest jitter', () => 0],
    ['the longest jitter', () => 0.999999],
    ['a random jitter', Math.random],
  ] as const) {
    it(`503 with Retry-After 2 is retried for at least 45 s and at most the 60 s budget (${draw})`, async () => {
      const { transport, waits, requests } = failingTransport({ retryAfter: '2', random });
      await expect(transport.call({ method: 'GET', path: '/ping' })).rejects.toMatchObject({ status: 503 });
      expect(sum(waits)).toBeGreaterThanOrEqual(45_000);
      expect(sum(waits)).toBeLessThanOrEqual(DEFAULT_RETRY_BUDGET_MS);
      expect(requests()).toBe(waits.length + 1);
      for (const wait of waits) {
        expect(wait).toBeGreaterThanOrEqual(2000);
        expect(wait).toBeLessThanOrEqual(MAX_BACKOFF_MS);
      }
    });
  }

  it('the waits grow exponentially from the base, with jitter, up to the cap', async () => {
    const { transport, waits } = failingTransport({ status: 502, random: () => 0.999999 });
    await expect(transport.call({ method: 'GET', path: '/ping' })).rejects.toMatchObject({ status: 502 });
    expect(waits.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, MAX_BACKOFF_MS, MAX_BACKOFF_MS]);
  });

  it('the budget is configurable: a smaller one gives up sooner', async () => {
    const { transport, waits } = failingTransport({ retryAfter: '2', random: () => 0, budgetMs: 5000 });
    await expect(transport.call({ method: 'GET', path: '/ping' })).rejects.toMatchObject({ status: 503 });
    expect(waits).toEqual([2000, 2000]);
  });
});
