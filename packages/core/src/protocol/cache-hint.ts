/** How long a client may treat a cacheable result as fresh, and whether shared caches may keep it (2026-07-28 caching). */
export interface CacheHint {
  /** Milliseconds (>= 0). */
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

export function checkCacheHint(hint: Partial<CacheHint> | undefined, where: string): void {
  if (hint === undefined) return;
  if (hint.ttlMs !== undefined && (!Number.isSafeInteger(hint.ttlMs) || hint.ttlMs < 0)) throw new RangeError(`${where}: ttlMs must be an integer >= 0, got ${hint.ttlMs}`);
  if (hint.cacheScope !== undefined && hint.cacheScope !== 'public' && hint.cacheScope !== 'private') {
    throw new RangeError(`${where}: cacheScope must be "public" or "private", got ${JSON.stringify(hint.cacheScope)}`);
  }
}
