// Which Redis the instances share, as settings and as the environment names it: read alike by
// listen(), `mcpx serve` and a server's own code (the notes example keeps its notes there).

/** Where the instances' shared state lives in Redis (see @mcpx/redis): one of `url`, `cluster` and `sentinel`. */
export interface RedisSettings {
  /** A single node: redis:// or rediss:// */
  url?: string;
  /** A Redis Cluster: the URLs of some of its nodes (credentials and TLS from the first). */
  cluster?: string[];
  /** A primary watched by Sentinel: the sentinels' URLs, the name they monitor it under, and its credentials if it needs any. */
  sentinel?: { nodes: string[]; name: string; username?: string; password?: string };
  /** Prefix of every key (default `mcpx:`): deployments and tests can share one Redis. */
  prefix?: string;
  /** How long an instance that stopped renewing its lease counts as alive (default 10 s). */
  leaseMs?: number;
  /** On a cluster, how many slots the streams an instance follows are spread over (default 16). */
  slotGroups?: number;
}

/** A comma-separated list of URLs, blanks dropped. */
function urlList(value: string): string[] {
  return value
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

/**
 * The Redis the environment names, as `listen()` and `mcpx serve` read it (undefined: none):
 * MCPX_REDIS_URL (a single node), MCPX_REDIS_CLUSTER_NODES (a cluster: comma-separated node URLs),
 * or MCPX_REDIS_SENTINELS (comma-separated sentinel URLs) with MCPX_REDIS_SENTINEL_NAME and, when
 * the primary needs them, MCPX_REDIS_USERNAME and MCPX_REDIS_PASSWORD; MCPX_REDIS_PREFIX with any.
 * Throws when more than one is set, or the sentinels come without a name.
 */
export function redisFromEnv(env: NodeJS.ProcessEnv = process.env): RedisSettings | undefined {
  const url = env.MCPX_REDIS_URL?.trim();
  const cluster = urlList(env.MCPX_REDIS_CLUSTER_NODES ?? '');
  const sentinels = urlList(env.MCPX_REDIS_SENTINELS ?? '');
  const given = [url && 'MCPX_REDIS_URL', cluster.length > 0 && 'MCPX_REDIS_CLUSTER_NODES', sentinels.length > 0 && 'MCPX_REDIS_SENTINELS'].filter(Boolean);
  if (given.length > 1) throw new Error(`Redis is named twice: set one of MCPX_REDIS_URL, MCPX_REDIS_CLUSTER_NODES and MCPX_REDIS_SENTINELS, got ${given.join(' and ')}`);
  const prefix = env.MCPX_REDIS_PREFIX ? { prefix: env.MCPX_REDIS_PREFIX } : {};
  if (url) return { url, ...prefix };
  if (cluster.length > 0) return { cluster, ...prefix };
  if (sentinels.length === 0) return undefined;
  const name = env.MCPX_REDIS_SENTINEL_NAME?.trim();
  if (!name) throw new Error('MCPX_REDIS_SENTINELS needs MCPX_REDIS_SENTINEL_NAME: the name the sentinels monitor the primary under');
  const username = env.MCPX_REDIS_USERNAME || undefined;
  const password = env.MCPX_REDIS_PASSWORD || undefined;
  return { sentinel: { nodes: sentinels, name, ...(username ? { username } : {}), ...(password ? { password } : {}) }, ...prefix };
}
