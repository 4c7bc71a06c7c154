import 'reflect-metadata';
import pino from 'pino';
import { RateLimit, Server, Tool, createEngine } from '@mcpx/core';
import { connect, rpcErrorOf } from '@mcpx/testing';
import { RATE_LIMIT_HIT, RedisKeys, RedisRateLimitStore, nodeRedisConnection } from '../src';
import { RedisTestBed, ThrowawayRedis, freePort, until } from './redis-kit';

const quiet = { logger: pino({ level: 'silent' }) };

describe('RedisRateLimitStore', () => {
  let bed: RedisTestBed;
  beforeAll(async () => {
    bed = await new RedisTestBed().open();
  });
  afterAll(() => bed.cleanup());

  it('is exact across instances: two stores on one Redis share each window', async () => {
    const a = await bed.cluster();
    const b = await bed.cluster();
    const firstAt = Date.now();
    const verdicts = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).rateLimits.hit('shared', 5, 60_000)));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(5);
    // What is left of the window that opened with the first hit, however slow the machine.
    const left = 60_000 - (Date.now() - firstAt) - 1;
    expect(verdicts.filter((v) => !v.allowed).every((v) => v.remaining === 0 && v.retryAfterMs >= left && v.retryAfterMs <= 60_000)).toBe(true);
    // One key, with the window as its ttl: nothing outlives it.
    const key = new RedisKeys(bed.prefix).rateLimit('shared');
    expect(await bed.raw.sendCommand(['ZCARD', key])).toBe(5);
    expect(await bed.pttl(key)).toBeGreaterThanOrEqual(60_000 - (Date.now() - firstAt) - 1);
    expect(RATE_LIMIT_HIT.source).toContain("redis.call('TIME')");
  });

  it('lets the oldest request leave its window', async () => {
    const a = await bed.cluster();
    expect((await a.rateLimits.hit('short', 1, 200)).allowed).toBe(true);
    expect((await a.rateLimits.hit('short', 1, 200)).allowed).toBe(false);
    await until(async () => (await a.rateLimits.hit('short', 1, 200)).allowed, 'the window to pass', 5_000);
  });
});

@Server({ name: 'outage', version: '1.0.0' })
class Outage {
  @Tool()
  @RateLimit({ limit: 2, windowMs: 60_000, name: 'per-caller' })
  work() {
    return 'done';
  }

  @Tool()
  @RateLimit({ limit: 100, windowMs: 60_000, by: 'global', name: 'everyone' })
  shared() {
    return 'shared';
  }
}

describe('a Redis outage under rate limits', () => {
  it('lets a per-caller limit through (open by default) and refuses a global one (closed by default), then counts again once Redis is back', async () => {
    const redis = new ThrowawayRedis(await freePort());
    await redis.start();
    const connection = nodeRedisConnection(redis.url, { connectTimeoutMs: 500 });
    await connection.connect();
    try {
      const store = new RedisRateLimitStore(connection, new RedisKeys('outage:'), () => 'test');
      const client = await connect(createEngine(new Outage(), { ...quiet, rateLimitStore: store }), { protocolVersion: '2026-07-28', principal: { subject: 'ana', scopes: [], claims: {} } });
      await client.callTool('work', {});
      await client.callTool('work', {});
      expect((await rpcErrorOf(client.callTool('work', {}))).data).toMatchObject({ limit: 'per-caller' });

      await redis.kill();
      // per-caller fails open: let through uncounted while its store is away.
      for (let i = 0; i < 3; i++) expect((await client.callTool('work', {})).content).toEqual([{ type: 'text', text: 'done' }]);
      // everyone (by: global) fails closed.
      const refused = await rpcErrorOf(client.callTool('shared', {}));
      expect(refused.code).toBe(-32004);
      expect(refused.data).toMatchObject({ limit: 'everyone', reason: 'store-unavailable', retryAfterMs: 1000 });

      await redis.start();
      // A fresh Redis holds no counts: the per-caller limit starts again.
      await until(
        async () =>
          await client.callTool('shared', {}).then(
            () => true,
            () => false,
          ),
        'Redis to be back',
        15_000,
      );
      await client.callTool('work', {});
      await client.callTool('work', {});
      expect((await rpcErrorOf(client.callTool('work', {}))).data).toMatchObject({ limit: 'per-caller' });
    } finally {
      await connection.close().catch(() => undefined);
      await redis.kill();
    }
  }, 30_000);
});
