import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/errors';
import { errorResponse, type RequestId } from '../protocol/jsonrpc';
import type { Registry } from '../registry/registry';
import type { RateLimitHit, RateLimitRule, RateLimitStore, RateLimitSubject } from '../policies/rate-limit';
import type { Refusal } from './admission';

/** How a limited request stood with its limits: what HTTP's RateLimit-Policy and RateLimit headers say. */
export interface RateLimitReport {
  /** `"name";q=limit;w=seconds` for each limit that applied. */
  readonly policy: string;
  /** `"name";r=remaining;t=seconds` for the limit closest to refusing. */
  readonly state: string;
}

type Applying = { rule: RateLimitRule; scope: string };

/** How long a store outage is logged once for (it may last, and every request would log it). */
const OUTAGE_LOG_MS = 10_000;

/**
 * The rate limits of admission: the server's, on every request, and the entry's a request names
 * (its tools/call, prompts/get or resources/read). Each limit counts per `by` key, and an entry's
 * per entry, so a class's limit counts each of its handlers apart. Checked only when some limit
 * applies: a server without limits never gets here.
 */
export class RateLimiter {
  private lastOutageLog = 0;

  constructor(
    private readonly store: RateLimitStore,
    private readonly serverRules: readonly RateLimitRule[],
    private readonly registry: Registry,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The limits a request meets, or undefined when none does. */
  applying(method: string, params: Record<string, unknown> | undefined): Applying[] | undefined {
    const r = this.registry;
    const entries = r.tools.hasRateLimits || r.prompts.hasRateLimits || r.resources.hasRateLimits || r.templates.hasRateLimits;
    if (this.serverRules.length === 0 && !entries) return undefined;
    const entry = entries ? this.entryOf(method, params) : undefined;
    if (this.serverRules.length === 0 && !entry) return undefined;
    const out: Applying[] = this.serverRules.map((rule) => ({ rule, scope: '*' }));
    if (entry) for (const rule of entry.rules) out.push({ rule, scope: entry.scope });
    // Shortest window first: a request refused by a per-second limit is not counted against a daily one.
    return out.length > 1 ? out.sort((a, b) => a.rule.windowMs - b.rule.windowMs) : out;
  }

  /** Counts the request against each limit, in order; the first that refuses answers. Counted in where allowed, as each store does. */
  async check(limits: Applying[], subject: RateLimitSubject, id: RequestId): Promise<{ refusal: Refusal } | { report: RateLimitReport }> {
    const now = this.now();
    let closest: { rule: RateLimitRule; hit: RateLimitHit } | undefined;
    for (const { rule, scope } of limits) {
      let hit: RateLimitHit;
      try {
        const counted = this.store.hit(`${rule.name}|${scope}|${keyOf(rule, subject)}`, rule.limit, rule.windowMs, now);
        hit = counted instanceof Promise ? await counted : counted;
      } catch (err) {
        this.logOutage(err, rule);
        if (rule.onStoreError === 'open') continue;
        const data = { limit: rule.name, max: rule.limit, windowMs: rule.windowMs, retryAfterMs: 1000, reason: 'store-unavailable' };
        const message = `Rate limit ${rule.name} cannot be checked right now (its store is unavailable); retry shortly`;
        return { refusal: { kind: 'rate', response: errorResponse(id, ErrorCode.LimitExceeded, message, data), retryAfterMs: 1000, unavailable: true, policy: policyOf(limits) } };
      }
      if (!hit.allowed) {
        const data = { limit: rule.name, max: rule.limit, windowMs: rule.windowMs, retryAfterMs: hit.retryAfterMs };
        const message = `Rate limit exceeded: at most ${rule.limit} requests per ${seconds(rule.windowMs)} s (${rule.name}); retry in ${seconds(hit.retryAfterMs)} s`;
        return { refusal: { kind: 'rate', response: errorResponse(id, ErrorCode.LimitExceeded, message, data), retryAfterMs: hit.retryAfterMs, policy: policyOf(limits) } };
      }
      if (!closest || hit.remaining / rule.limit < closest.hit.remaining / closest.rule.limit) closest = { rule, hit };
    }
    const state = closest ? `"${closest.rule.name}";r=${closest.hit.remaining};t=${seconds(closest.hit.retryAfterMs)}` : '';
    return { report: { policy: policyOf(limits), state } };
  }

  private entryOf(method: string, params: Record<string, unknown> | undefined): { rules: readonly RateLimitRule[]; scope: string } | undefined {
    if (!params) return undefined;
    let rules: readonly RateLimitRule[] | undefined;
    let scope = '';
    if (method === 'tools/call' && typeof params.name === 'string') {
      rules = this.registry.tools.get(params.name)?.rateLimits;
      scope = `tool:${params.name}`;
    } else if (method === 'prompts/get' && typeof params.name === 'string') {
      rules = this.registry.prompts.get(params.name)?.rateLimits;
      scope = `prompt:${params.name}`;
    } else if (method === 'resources/read' && typeof params.uri === 'string') {
      const entry = this.registry.entryForUri(params.uri);
      rules = entry?.rateLimits;
      scope = `resource:${'uriTemplate' in (entry?.definition ?? {}) ? (entry!.definition as { uriTemplate: string }).uriTemplate : params.uri}`;
    }
    return rules && rules.length > 0 ? { rules, scope } : undefined;
  }

  private logOutage(err: unknown, rule: RateLimitRule): void {
    const now = this.now();
    if (now - this.lastOutageLog < OUTAGE_LOG_MS) return;
    this.lastOutageLog = now;
    this.logger.error(
      { err, limit: rule.name, onStoreError: rule.onStoreError },
      `rate limit store unavailable: requests are ${rule.onStoreError === 'open' ? 'let through' : 'refused'} for limits that say ${rule.onStoreError}`,
    );
  }
}

/** Who shares a count under `rule`. */
function keyOf(rule: RateLimitRule, s: RateLimitSubject): string {
  const by = rule.by;
  if (typeof by === 'function') return `f:${by(s)}`;
  if (by === 'global') return 'g';
  if (by === 'session' && s.sessionId) return `s:${s.sessionId}`;
  if (s.principal) return `p:${typeof s.principal.claims.iss === 'string' ? s.principal.claims.iss : ''}:${s.principal.subject}`;
  if (s.sessionId) return `s:${s.sessionId}`;
  return `a:${s.clientAddress ?? 'local'}`;
}

function policyOf(limits: Applying[]): string {
  return limits.map(({ rule }) => `"${rule.name}";q=${rule.limit};w=${seconds(rule.windowMs)}`).join(', ');
}

/** Whole seconds, rounded up (HTTP's Retry-After and the RateLimit fields count seconds). */
export function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
