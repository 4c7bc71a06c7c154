import type { CacheHint } from '../protocol/cache-hint';
import { DefinitionError } from '../definition-error';

const KNOWN = new Set(['ttlMs', 'cacheScope']);

/**
 * An entry's own caching hints for resources/read (2026-07-28 caching), checked when it is defined:
 * `ttlMs` a safe integer >= 0, `cacheScope` "public" or "private". What it leaves out comes from
 * the server's `cache` option. Undefined when the entry sets none.
 */
export function cacheHintOf(cache: Partial<CacheHint> | undefined, source: string): Readonly<Partial<CacheHint>> | undefined {
  if (cache === undefined) return undefined;
  if (typeof cache !== 'object' || cache === null || Array.isArray(cache)) {
    throw new DefinitionError(`${source}: cache must be an object such as { ttlMs: 60000, cacheScope: 'public' }, got ${JSON.stringify(cache)}`);
  }
  for (const key of Object.keys(cache)) {
    if (!KNOWN.has(key)) throw new DefinitionError(`${source}: cache has an unknown option "${key}" (it takes ttlMs and cacheScope)`);
  }
  const { ttlMs, cacheScope } = cache;
  if (ttlMs !== undefined && (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 0)) {
    throw new DefinitionError(`${source}: cache.ttlMs must be a whole number of milliseconds >= 0 (a safe integer), got ${JSON.stringify(ttlMs)}`);
  }
  if (cacheScope !== undefined && cacheScope !== 'public' && cacheScope !== 'private') {
    throw new DefinitionError(`${source}: cache.cacheScope must be "public" or "private", got ${JSON.stringify(cacheScope)}`);
  }
  const hint: Partial<CacheHint> = {};
  if (ttlMs !== undefined) hint.ttlMs = ttlMs;
  if (cacheScope !== undefined) hint.cacheScope = cacheScope;
  return Object.freeze(hint);
}
