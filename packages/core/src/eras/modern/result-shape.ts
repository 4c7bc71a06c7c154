import type { Implementation } from '../../protocol/types';
import { META } from './meta';
import type { CacheHint } from '../../protocol/cache-hint';

export { checkCacheHint, type CacheHint } from '../../protocol/cache-hint';

/** The methods whose complete results carry caching hints. */
export const CACHEABLE = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

/**
 * A complete modern result: `resultType`, the server's identity in `_meta`, and for cacheable
 * methods the caching hints (the handler's own, else the entry's, else the server's).
 */
export function completeResult(method: string, result: Record<string, unknown>, serverInfo: Implementation, cache: CacheHint | undefined): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  const shaped: Record<string, unknown> = { resultType: 'complete', ...result, _meta: { ...meta, [META.serverInfo]: serverInfo } };
  if (cache && CACHEABLE.has(method)) {
    if (shaped.ttlMs === undefined) shaped.ttlMs = cache.ttlMs;
    if (shaped.cacheScope === undefined) shaped.cacheScope = cache.cacheScope;
  }
  return shaped;
}
