import type { RateLimitHit, RateLimitStore } from '@mcpx/core/stores';
import type { RedisConnection } from './commands';
import type { RedisKeys } from './keys';
import { luaScript } from './scripts';

/**
 * One request against a sliding window log, atomically: the sorted set holds the times of the
 * requests in the window (Redis's own clock: instances' clocks may differ). Expired times go; when
 * `limit` are left the request is refused with the wait until the oldest of the last `limit` leaves;
 * else it is added and the set expires with the window. One key: any Redis Cluster slot.
 *
 * KEYS[1] the set. ARGV[1] limit; ARGV[2] window in ms; ARGV[3] a member unique to this request.
 * Returns { allowed (0/1), remaining, retryAfterMs }.
 */
export const RATE_LIMIT_HIT = luaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  return { 0, 0, math.max(1, tonumber(oldest[2]) + window - now) }
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
local remaining = limit - n - 1
if remaining > 0 then return { 1, remaining, 0 } end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { 1, 0, math.max(1, tonumber(first[2]) + window - now) }
`);

/** Rate limit counters every instance shares: exact across them (the script runs atomically on Redis). */
export class RedisRateLimitStore implements RateLimitStore {
  private sequence = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly instanceId: () => string,
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitHit> {
    const reply = (await this.redis.evalScript(RATE_LIMIT_HIT, [this.keys.rateLimit(key)], [String(limit), String(windowMs), `${this.instanceId()}:${++this.sequence}`])) as number[];
    return { allowed: Number(reply[0]) === 1, remaining: Number(reply[1]), retryAfterMs: Number(reply[2]) };
  }
}
