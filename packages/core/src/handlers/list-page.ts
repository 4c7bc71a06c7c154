import { missingScopes, type ScopedEntry } from '../auth/principal';
import type { EntryList } from '../registry/entry-list';
import type { RequestContext } from '../context/request-context';
import { optionalString } from '../context/params';

/** One page of a list method: `{ [key]: definitions, nextCursor? }`; with a principal, only what it may use (unless configured otherwise). */
export function listPage<E extends { definition: object } & ScopedEntry, K extends string, V = E['definition']>(
  list: EntryList<E>,
  params: Record<string, unknown>,
  ctx: RequestContext,
  key: K,
  view: (entry: E) => V = (e) => e.definition as V,
): { [P in K]: V[] } & { nextCursor?: string } {
  const { principal } = ctx;
  const visible = principal && ctx.engine.options.listOnlyPermitted !== false ? (e: ScopedEntry) => missingScopes(principal, e.scopes).length === 0 : undefined;
  const page = list.page(optionalString(params, 'cursor', ctx.method), ctx.engine.options.pageSize, visible);
  const result = { [key]: page.items.map(view) } as { [P in K]: V[] } & { nextCursor?: string };
  if (page.nextCursor) result.nextCursor = page.nextCursor;
  return result;
}
