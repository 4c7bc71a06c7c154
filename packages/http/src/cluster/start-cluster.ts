import type { Logger } from 'pino';
import type { Cluster, RedisSettings } from '@mcpx/core/stores';

/**
 * Creates and starts the Redis-backed cluster. @mcpx/redis is an optional peer of @mcpx/http,
 * loaded only here: a server without Redis never pays for it. Rejects with a clear error when the
 * package is missing or Redis cannot be reached.
 */
export async function startRedisCluster(redis: string | RedisSettings, logger: Logger): Promise<Cluster> {
  const settings = typeof redis === 'string' ? { url: redis } : redis;
  let createRedisCluster: (options: RedisSettings & { logger?: Logger }) => Cluster;
  try {
    ({ createRedisCluster } = (await import('@mcpx/redis' as string)) as { createRedisCluster: typeof createRedisCluster });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      throw new Error('Sharing state through Redis needs the @mcpx/redis package: npm install @mcpx/redis', { cause: err });
    }
    throw err;
  }
  const cluster = createRedisCluster({ ...settings, logger });
  await cluster.start();
  return cluster;
}
