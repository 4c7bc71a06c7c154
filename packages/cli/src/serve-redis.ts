import type { RedisSettings } from '@mcpx/http';
import { pick, toList } from './args';
import { CliError } from './errors';

/** `mcpx serve`'s Redis flags: where the instances share their state (one of three), and the key prefix. */
export const REDIS_OPTIONS = {
  'redis-url': { type: 'string' },
  'redis-cluster-nodes': { type: 'string' },
  'redis-sentinels': { type: 'string' },
  'redis-sentinel-name': { type: 'string' },
  'redis-prefix': { type: 'string' },
} as const;

export const REDIS_FLAGS = Object.keys(REDIS_OPTIONS) as (keyof typeof REDIS_OPTIONS)[];

/** The environment variables each flag stands for (the flag wins). */
const ENV_OF = {
  'redis-url': 'MCPX_REDIS_URL',
  'redis-cluster-nodes': 'MCPX_REDIS_CLUSTER_NODES',
  'redis-sentinels': 'MCPX_REDIS_SENTINELS',
  'redis-sentinel-name': 'MCPX_REDIS_SENTINEL_NAME',
  'redis-prefix': 'MCPX_REDIS_PREFIX',
} as const;

const WHERE = ['redis-url', 'redis-cluster-nodes', 'redis-sentinels'] as const;
const NEEDS_WHERE = '--redis-url, --redis-cluster-nodes or --redis-sentinels';

type Picked = { raw: string | boolean; from: string };

/** Text as it may be printed: the passwords of the URLs in it hidden. */
export function withoutPasswords(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@/\s]*@/gi, '$1***@');
}

function redisUrl(raw: string, from: string): string {
  const url = raw.trim();
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') || !parsed.hostname) {
    throw new CliError(`${from} must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379, got "${withoutPasswords(raw)}"`);
  }
  return url;
}

/**
 * --redis-url, --redis-cluster-nodes or --redis-sentinels (with --redis-sentinel-name), each flag
 * before its MCPX_ variable; a flag naming where Redis is sets aside the variables naming it
 * another way. The primary behind Sentinel takes MCPX_REDIS_USERNAME and MCPX_REDIS_PASSWORD
 * (no flags: a password on the command line shows in the process list).
 */
export function redisSettings(values: Record<string, unknown>, env: NodeJS.ProcessEnv): RedisSettings | undefined {
  const read = (flag: keyof typeof REDIS_OPTIONS, fromEnv = true) => pick(values[flag] as string | undefined, flag, fromEnv ? [ENV_OF[flag]] : [], env);
  const flagged = WHERE.filter((flag) => values[flag] !== undefined);
  const named = (flagged.length > 0 ? flagged : WHERE)
    .map((kind) => ({ kind, picked: read(kind, flagged.length === 0) }))
    .filter((v): v is { kind: (typeof WHERE)[number]; picked: Picked } => v.picked !== undefined);
  if (named.length > 1) throw new CliError(`${named.map((v) => v.picked.from).join(' and ')} name Redis twice: give one of ${NEEDS_WHERE}`);
  const prefixPicked = read('redis-prefix');
  const namePicked = read('redis-sentinel-name');
  if (named.length === 0) {
    const stray = prefixPicked ?? namePicked;
    if (stray) throw new CliError(`${stray.from} needs ${NEEDS_WHERE}: it applies to that Redis`);
    return undefined;
  }
  const { kind, picked: where } = named[0]!;
  if (namePicked && kind !== 'redis-sentinels') throw new CliError(`${namePicked.from} applies to --redis-sentinels (MCPX_REDIS_SENTINELS) only`);
  const prefix = prefixSetting(prefixPicked);
  const urls = (v: Picked) => toList(v)!.map((url) => redisUrl(url, v.from));
  if (kind === 'redis-url') return { url: redisUrl(String(where.raw), where.from), ...prefix };
  if (kind === 'redis-cluster-nodes') return { cluster: urls(where), ...prefix };
  const name = namePicked && String(namePicked.raw).trim();
  if (!name) throw new CliError(`${where.from} needs --redis-sentinel-name (MCPX_REDIS_SENTINEL_NAME): the name the sentinels monitor the primary under`);
  const username = env.MCPX_REDIS_USERNAME || undefined;
  const password = env.MCPX_REDIS_PASSWORD || undefined;
  return { sentinel: { nodes: urls(where), name, ...(username ? { username } : {}), ...(password ? { password } : {}) }, ...prefix };
}

function prefixSetting(picked: Picked | undefined): { prefix?: string } {
  if (!picked) return {};
  const prefix = String(picked.raw);
  // Braces would break the hash tags that keep one session's keys in one Redis Cluster slot.
  if (!prefix || /[\s{}]/.test(prefix)) throw new CliError(`${picked.from} must be a key prefix without spaces or braces, e.g. mcpx:, got "${prefix}"`);
  return { prefix };
}

/**
 * The settings as the server's own code reads them from the environment (the notes example keeps
 * its notes in this Redis): what the command was told, flags included, and nothing else.
 */
export function exportRedisSettings(redis: RedisSettings, env: NodeJS.ProcessEnv = process.env): void {
  for (const name of Object.values(ENV_OF)) delete env[name];
  if (redis.url !== undefined) env.MCPX_REDIS_URL = redis.url;
  if (redis.cluster) env.MCPX_REDIS_CLUSTER_NODES = redis.cluster.join(',');
  if (redis.sentinel) {
    env.MCPX_REDIS_SENTINELS = redis.sentinel.nodes.join(',');
    env.MCPX_REDIS_SENTINEL_NAME = redis.sentinel.name;
  }
  if (redis.prefix !== undefined) env.MCPX_REDIS_PREFIX = redis.prefix;
}
