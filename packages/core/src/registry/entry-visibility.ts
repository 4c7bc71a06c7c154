import type { Caller, ScopedEntry } from '../auth/principal';
import type { RequestContext } from '../context/request-context';
import type { ToolSearchOptions } from '../metadata/options';

/** The server's tag selection: `include` keeps only entries with one of its tags, `exclude` drops entries with any of its. */
export interface TagFilter {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

/** The filter of the server's options, or undefined when it selects nothing (the common case: no per-entry work). */
export function tagFilterOf(include: readonly string[] | undefined, exclude: readonly string[] | undefined): TagFilter | undefined {
  if (!include?.length && !exclude?.length) return undefined;
  return { ...(include?.length ? { include: [...include] } : {}), ...(exclude?.length ? { exclude: [...exclude] } : {}) };
}

/** Whether the server's tag filter keeps an entry. */
export function passesTags(entry: ScopedEntry, filter: TagFilter | undefined): boolean {
  if (!filter) return true;
  const tags = entry.tags ?? [];
  if (filter.include && !tags.some((t) => filter.include!.includes(t))) return false;
  if (filter.exclude && tags.some((t) => filter.exclude!.includes(t))) return false;
  return true;
}

/** Whether an entry's visibility can only be known by asking its rule (admission then leaves the scope check to the handler). */
export function dependsOnCaller(entry: ScopedEntry): boolean {
  return entry.visible !== undefined;
}

/** The caller a `visible` rule sees, from the request. */
export function callerOf(ctx: RequestContext): Caller {
  return { principal: ctx.principal, era: ctx.env.era, clientInfo: ctx.clientInfo, sessionId: ctx.sessionId, clientCapabilities: ctx.clientCapabilities };
}

/**
 * Whether `ctx`'s caller may see `entry`: a plain boolean unless the entry has a rule that answers
 * with a promise, so requests naming entries without rules await nothing. A rule that throws hides.
 */
export function isVisibleTo(entry: ScopedEntry, filter: TagFilter | undefined, ctx: RequestContext): boolean | Promise<boolean> {
  if (!passesTags(entry, filter)) return false;
  if (!entry.visible) return true;
  let answer: boolean | Promise<boolean>;
  try {
    answer = entry.visible(callerOf(ctx));
  } catch {
    return false;
  }
  return answer instanceof Promise
    ? answer.then(
        (v) => v === true,
        () => false,
      )
    : answer === true;
}

/** `@Server({ toolSearch })` checked at startup. */
export function toolSearchOf(options: ToolSearchOptions | undefined): ToolSearchOptions | undefined {
  if (options === undefined) return undefined;
  if (!Number.isSafeInteger(options.threshold) || options.threshold < 0) throw new RangeError(`toolSearch.threshold must be a non-negative integer, got ${options.threshold}`);
  if (options.pinned !== undefined && (!Array.isArray(options.pinned) || options.pinned.some((n) => typeof n !== 'string'))) throw new RangeError('toolSearch.pinned must be tool names');
  return { threshold: options.threshold, pinned: [...(options.pinned ?? [])] };
}
