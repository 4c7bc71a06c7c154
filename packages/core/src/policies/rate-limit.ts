import type { Principal } from '../auth/principal';
import { DefinitionError } from '../definition-error';

/** What a request is counted by (docs/policies.md). */
export type RateLimitBy = 'principal' | 'session' | 'global' | ((request: RateLimitSubject) => string);

/** `@RateLimit(...)`, `@Server({ rateLimit })`: at most `limit` requests in any `windowMs`, per `by`. */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /**
   * Who shares a count: `principal` (default: the authenticated subject; without auth the 2025
   * session, else the client's address), `session`, `global`, or a function of the request.
   */
  by?: RateLimitBy;
  /** What a refusal's `data.limit` and the RateLimit headers call it (default: derived from where it is declared). */
  name?: string;
  /**
   * When the shared store cannot be reached: `open` lets requests through, `closed` refuses them.
   * Default: closed for `by: 'global'`, open otherwise. Either way it is logged.
   */
  onStoreError?: 'open' | 'closed';
}

/** What `by` sees of a request: the same fields a middleware's context has for it. */
export interface RateLimitSubject {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly era: 'legacy' | 'modern';
  readonly principal: Principal | undefined;
  readonly sessionId: string | undefined;
  /** The client's address (HTTP; behind a trusted proxy, the original client), undefined over stdio. */
  readonly clientAddress: string | undefined;
  readonly toolName: string | undefined;
  readonly promptName: string | undefined;
  readonly resourceUri: string | undefined;
}

/** A limit as checked: its options resolved, and the name its counters are kept under. */
export interface RateLimitRule {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  readonly by: RateLimitBy;
  readonly onStoreError: 'open' | 'closed';
}

/** One counter's verdict. */
export interface RateLimitHit {
  readonly allowed: boolean;
  /** Requests left in the window after this one (0 when refused). */
  readonly remaining: number;
  /** When the oldest counted request leaves the window: the wait before one more is allowed (0 when allowed and some are left). */
  readonly retryAfterMs: number;
}

/**
 * Where counters live: in process, or shared by every instance (@mcpx/redis). `hit` counts a
 * request in when the window has room, atomically: a sliding window log of the last `limit`
 * requests' times, so the limit is exact over any `windowMs`.
 */
export interface RateLimitStore {
  hit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitHit> | RateLimitHit;
}

/** The limits given to `@RateLimit` or `@Server({ rateLimit })`, checked; `where` names them in errors and default names. */
export function rateLimitRules(options: RateLimitOptions | readonly RateLimitOptions[] | undefined, where: string): readonly RateLimitRule[] {
  if (options === undefined) return [];
  const list = Array.isArray(options) ? (options as readonly RateLimitOptions[]) : [options as RateLimitOptions];
  return Object.freeze(
    list.map((o, i) => {
      if (typeof o !== 'object' || o === null) throw new DefinitionError(`${where}: a rate limit is an object { limit, windowMs, by? }`);
      if (!Number.isSafeInteger(o.limit) || o.limit < 1) throw new DefinitionError(`${where}: rate limit "limit" must be a positive integer, got ${String(o.limit)}`);
      if (!Number.isSafeInteger(o.windowMs) || o.windowMs < 1)
        throw new DefinitionError(`${where}: rate limit "windowMs" must be a positive integer of milliseconds, got ${String(o.windowMs)}`);
      const by = o.by ?? 'principal';
      if (typeof by !== 'function' && by !== 'principal' && by !== 'session' && by !== 'global')
        throw new DefinitionError(`${where}: rate limit "by" must be principal, session, global or a function`);
      if (o.onStoreError !== undefined && o.onStoreError !== 'open' && o.onStoreError !== 'closed') throw new DefinitionError(`${where}: rate limit "onStoreError" must be open or closed`);
      if (o.name !== undefined && (typeof o.name !== 'string' || !/^[\w.:-]{1,64}$/.test(o.name)))
        throw new DefinitionError(`${where}: rate limit "name" must be 1-64 of A-Z a-z 0-9 _ . : -`);
      const name = o.name ?? `${where.replace(/[^\w.:-]+/g, '_')}${list.length > 1 ? `#${i + 1}` : ''}`;
      return Object.freeze({ name, limit: o.limit, windowMs: o.windowMs, by, onStoreError: o.onStoreError ?? (by === 'global' ? 'closed' : 'open') });
    }),
  );
}

/**
 * Counters in this process: per key, the times of the last `limit` requests (a ring of numbers).
 * Exact within the process. A key whose newest request left its window is dropped by a sweep
 * every so many hits, so memory follows the keys active within their windows.
 */
export class InMemoryRateLimitStore implements RateLimitStore {
  private readonly logs = new Map<string, { times: number[]; windowMs: number }>();
  private hits = 0;

  constructor(private readonly sweepEvery = 1024) {}

  hit(key: string, limit: number, windowMs: number, now: number): RateLimitHit {
    if (++this.hits % this.sweepEvery === 0) this.sweep(now);
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { times: [], windowMs }));
    const times = log.times;
    // Drop what left the window; the log stays sorted, oldest first.
    let stale = 0;
    while (stale < times.length && times[stale]! <= now - windowMs) stale++;
    if (stale > 0) times.splice(0, stale);
    if (times.length >= limit) return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, times[times.length - limit]! + windowMs - now) };
    times.push(now);
    const remaining = limit - times.length;
    return { allowed: true, remaining, retryAfterMs: remaining > 0 ? 0 : Math.max(1, times[0]! + windowMs - now) };
  }

  /** How many keys are kept (tests, metrics). */
  get size(): number {
    return this.logs.size;
  }

  private sweep(now: number): void {
    for (const [key, log] of this.logs) if (log.times.length === 0 || log.times[log.times.length - 1]! <= now - log.windowMs) this.logs.delete(key);
  }
}
