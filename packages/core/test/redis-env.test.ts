import { redisFromEnv } from '../src/exports/stores';

/** redisFromEnv: the Redis that listen(), `mcpx serve` and the notes example read from the environment. */
describe('redisFromEnv', () => {
  it('is undefined when no Redis is named, whatever else is set', () => {
    expect(redisFromEnv({})).toBeUndefined();
    expect(redisFromEnv({ MCPX_REDIS_URL: ' ', MCPX_REDIS_PREFIX: 'p:', MCPX_REDIS_SENTINEL_NAME: 'mcpx' })).toBeUndefined();
  });

  it('reads a single node, a cluster or Sentinel, each with the prefix', () => {
    expect(redisFromEnv({ MCPX_REDIS_URL: 'redis://r:6379', MCPX_REDIS_PREFIX: 'p:' })).toEqual({ url: 'redis://r:6379', prefix: 'p:' });
    expect(redisFromEnv({ MCPX_REDIS_CLUSTER_NODES: 'redis://a:7000, redis://b:7000,', MCPX_REDIS_PREFIX: 'p:' })).toEqual({ cluster: ['redis://a:7000', 'redis://b:7000'], prefix: 'p:' });
    expect(redisFromEnv({ MCPX_REDIS_SENTINELS: 'redis://s1:26379,redis://s2:26379', MCPX_REDIS_SENTINEL_NAME: 'mcpx' })).toEqual({
      sentinel: { nodes: ['redis://s1:26379', 'redis://s2:26379'], name: 'mcpx' },
    });
    expect(redisFromEnv({ MCPX_REDIS_SENTINELS: 'redis://s1:26379', MCPX_REDIS_SENTINEL_NAME: 'mcpx', MCPX_REDIS_USERNAME: 'app', MCPX_REDIS_PASSWORD: 'pw' })).toEqual({
      sentinel: { nodes: ['redis://s1:26379'], name: 'mcpx', username: 'app', password: 'pw' },
    });
  });

  it('refuses Redis named twice, and sentinels without the name they monitor the primary under', () => {
    expect(() => redisFromEnv({ MCPX_REDIS_URL: 'redis://r:6379', MCPX_REDIS_CLUSTER_NODES: 'redis://a:7000' })).toThrow(
      'Redis is named twice: set one of MCPX_REDIS_URL, MCPX_REDIS_CLUSTER_NODES and MCPX_REDIS_SENTINELS, got MCPX_REDIS_URL and MCPX_REDIS_CLUSTER_NODES',
    );
    expect(() => redisFromEnv({ MCPX_REDIS_SENTINELS: 'redis://s1:26379' })).toThrow(/^MCPX_REDIS_SENTINELS needs MCPX_REDIS_SENTINEL_NAME/);
  });
});
