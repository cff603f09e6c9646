// Rate limits of section 8 of the contract. (Placeholder interface; the real limiter lands with issue 4.)
import type { Config } from '../config.js';

export interface KeyUsage {
  apiKeyId: number;
  companyId: number;
  isWrite: boolean;
}

export interface RateLimiter {
  /** Counts a request without a valid key from this IP; throws `rate_limit_exceeded` past the limit. */
  consumeAnonymous(ip: string): Promise<void>;
  /** Counts a request of a valid key; returns headers for the response; throws past a limit. */
  consumeKey(usage: KeyUsage): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export function createRateLimiter(_config: Config): RateLimiter {
  return {
    consumeAnonymous: async () => {},
    consumeKey: async () => ({}),
    close: async () => {},
  };
}
