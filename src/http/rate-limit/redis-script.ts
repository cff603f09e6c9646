// The Lua script that counts the checks of a batch of requests in Redis, one round trip for all,
// and the ioredis client that has it as a command (the Redis store defines it, redis-store.ts).
import type { Redis } from 'ioredis';

/**
 * The fixed windows of every limit of the requests of one batch, counted in one round trip
 * (rate-limiter-flexible would send one script per limit and request). Per counter, the same steps
 * as that library's own script: a window opens at the first request and lasts its seconds; the
 * answer is the count and the milliseconds left. A counter that several requests of the batch
 * share is raised once by their number: the script runs atomically, so the k-th of them gets the
 * count before the batch plus k, exactly what k increments of one would have given it (see
 * sendBatch). KEYS: the distinct counters; ARGV: each counter's window in seconds, then each
 * counter's increment. Plain Redis only: the counters may live in different slots of a Redis
 * Cluster.
 */
export const CONSUME_SCRIPT = `
local answer = {}
local count = #KEYS
for index, key in ipairs(KEYS) do
  local seconds = ARGV[index]
  redis.call('set', key, 0, 'EX', seconds, 'NX')
  local consumed = redis.call('incrby', key, ARGV[count + index])
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, seconds)
    ttl = 1000 * seconds
  end
  answer[#answer + 1] = consumed
  answer[#answer + 1] = ttl
end
return answer`;

/** The ioredis client with the script above defined as a command. */
export type LimitsClient = Redis & {
  partnerApiConsume(numberOfKeys: number, ...keysSecondsIncrements: string[]): Promise<number[]>;
};
