import type { Implementation } from '../../protocol/types';
import { META } from './meta';

/** How long a client may treat a cacheable result as fresh, and whether shared caches may keep it (2026-07-28 caching). */
export interface CacheHint {
  /** Milliseconds (>= 0). */
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** The methods whose complete results carry caching hints. */
export const CACHEABLE = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

export function checkCacheHint(hint: Partial<CacheHint> | undefined, where: string): void {
  if (hint === undefined) return;
  if (hint.ttlMs !== undefined && (!Number.isSafeInteger(hint.ttlMs) || hint.ttlMs < 0)) throw new RangeError(`${where}: ttlMs must be an integer >= 0, got ${hint.ttlMs}`);
  if (hint.cacheScope !== undefined && hint.cacheScope !== 'public' && hint.cacheScope !== 'private') {
    throw new RangeError(`${where}: cacheScope must be "public" or "private", got ${JSON.stringify(hint.cacheScope)}`);
  }
}

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
