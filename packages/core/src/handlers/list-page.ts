import { InsufficientScopeError, missingScopes, type ScopedEntry } from '../auth/principal';
import { isVisibleTo, passesTags } from '../registry/entry-visibility';
import type { EntryList } from '../registry/entry-list';
import type { RequestContext } from '../context/request-context';
import { optionalString } from '../context/params';

/**
 * One page of a list method: `{ [key]: definitions, nextCursor? }`; with a principal, only what it may use (unless configured
 * otherwise), and never what the server's tags or an entry's `visible` rule hide from this caller. Rules are awaited only
 * when the list holds an entry with one: other lists answer without a promise.
 */
export function listPage<E extends { definition: object } & ScopedEntry, K extends string, V = E['definition']>(
  list: EntryList<E>,
  params: Record<string, unknown>,
  ctx: RequestContext,
  key: K,
  view: (entry: E) => V = (e) => e.definition as V,
): ListResult<K, V> | Promise<ListResult<K, V>> {
  if (!list.hasVisibilityRules) return pageOf(list, params, ctx, key, view, undefined);
  return hiddenFrom(list, ctx).then((hidden) => pageOf(list, params, ctx, key, view, hidden));
}

type ListResult<K extends string, V> = { [P in K]: V[] } & { nextCursor?: string };

function pageOf<E extends { definition: object } & ScopedEntry, K extends string, V>(
  list: EntryList<E>,
  params: Record<string, unknown>,
  ctx: RequestContext,
  key: K,
  view: (entry: E) => V,
  hidden: ReadonlySet<E> | undefined,
): ListResult<K, V> {
  const visible = shownTo(ctx, hidden);
  const page = list.page(optionalString(params, 'cursor', ctx.method), ctx.engine.options.pageSize, visible);
  const result = { [key]: page.items.map(view) } as ListResult<K, V>;
  if (page.nextCursor) result.nextCursor = page.nextCursor;
  return result;
}

/** Every entry of `list` this caller's lists may show, in list order (what tool search searches). */
export function visibleEntries<E extends ScopedEntry>(list: EntryList<E>, ctx: RequestContext): E[] | Promise<E[]> {
  const pick = (hidden: ReadonlySet<E> | undefined) => {
    const keep = shownTo(ctx, hidden);
    return keep ? [...list.values()].filter(keep) : [...list.values()];
  };
  return list.hasVisibilityRules ? hiddenFrom(list, ctx).then(pick) : pick(undefined);
}

function shownTo<E extends ScopedEntry>(ctx: RequestContext, hidden: ReadonlySet<E> | undefined): ((e: E) => boolean) | undefined {
  const { principal } = ctx;
  const tags = ctx.engine.registry.tagFilter;
  const permitted = principal && ctx.engine.options.listOnlyPermitted !== false;
  if (!permitted && !tags && !hidden) return undefined;
  return (e: E) => passesTags(e, tags) && !hidden?.has(e) && (!permitted || missingScopes(principal, e.scopes).length === 0);
}

/** The entries whose `visible` rule says no to this caller, every rule asked at once. */
async function hiddenFrom<E extends ScopedEntry>(list: EntryList<E>, ctx: RequestContext): Promise<Set<E>> {
  const hidden = new Set<E>();
  const pending: Promise<void>[] = [];
  for (const entry of list.values()) {
    if (!entry.visible) continue;
    const answer = isVisibleTo(entry, undefined, ctx);
    if (answer instanceof Promise) pending.push(answer.then((ok) => void (ok || hidden.add(entry))));
    else if (!answer) hidden.add(entry);
  }
  await Promise.all(pending);
  return hidden;
}

/**
 * The entry a request names, as this caller may know it: undefined when the server's tags or the entry's rule hide it
 * (the caller then gets the unknown-name answer). An entry with a rule is scope-checked here, after its rule, because
 * admission left it alone so as not to reveal it.
 */
export function visibleEntry<E extends ScopedEntry>(entry: E | undefined, ctx: RequestContext, what: string): E | undefined | Promise<E | undefined> {
  if (!entry) return undefined;
  const answer = isVisibleTo(entry, ctx.engine.registry.tagFilter, ctx);
  if (answer === true) return entry.visible ? permitted(entry, ctx, what) : entry;
  if (answer === false) return undefined;
  return answer.then((ok) => (ok ? permitted(entry, ctx, what) : undefined));
}

function permitted<E extends ScopedEntry>(entry: E, ctx: RequestContext, what: string): E {
  if (missingScopes(ctx.principal, entry.scopes).length > 0) throw new InsufficientScopeError([...entry.scopes], what);
  return entry;
}
