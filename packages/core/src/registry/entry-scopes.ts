import { DefinitionError } from '../definition-error';
import { checkMiddleware, type Middleware } from '../context/middleware';
import type { VisibilityRule } from '../auth/principal';
import { rateLimitRules, type RateLimitOptions, type RateLimitRule } from '../policies/rate-limit';

/** An entry's scopes: OAuth scope tokens (RFC 6749 §3.3: printable ASCII without space, quote or backslash). */
export function scopesOf(scopes: string[] | undefined, source: string): readonly string[] {
  if (scopes === undefined) return [];
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) {
      throw new DefinitionError(`${source}: ${JSON.stringify(scope)} is not a valid OAuth scope`);
    }
  }
  return Object.freeze([...new Set(scopes)]);
}

/** An entry's own middleware, checked and frozen; nothing at all when it has none (the pipeline then never looks). */
export function middlewareOf(middleware: readonly Middleware[] | undefined, source: string): { middleware?: readonly Middleware[] } {
  const list = checkMiddleware(middleware, source);
  return list.length > 0 ? { middleware: list } : {};
}

/** An entry's tags and visibility rule, checked; nothing at all when it has neither (its requests then never await a rule). */
export function visibilityOf(spec: { tags?: string[]; visible?: VisibilityRule }, source: string): { tags?: readonly string[]; visible?: VisibilityRule } {
  const out: { tags?: readonly string[]; visible?: VisibilityRule } = {};
  if (spec.tags !== undefined) {
    if (!Array.isArray(spec.tags) || spec.tags.some((t) => typeof t !== 'string' || t === '')) throw new DefinitionError(`${source}: tags must be non-empty strings`);
    if (spec.tags.length > 0) out.tags = Object.freeze([...new Set(spec.tags)]);
  }
  if (spec.visible !== undefined) {
    if (typeof spec.visible !== 'function') throw new DefinitionError(`${source}: visible must be a function of the caller`);
    out.visible = spec.visible;
  }
  return out;
}

/** An entry's own rate limits, checked; nothing at all when it has none (admission then never counts for it). */
export function rateLimitsOf(options: RateLimitOptions | readonly RateLimitOptions[] | undefined, source: string): { rateLimits?: readonly RateLimitRule[] } {
  const rules = rateLimitRules(options, source);
  return rules.length > 0 ? { rateLimits: rules } : {};
}
