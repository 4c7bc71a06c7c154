import type { Middleware } from '../context/middleware';
import type { RequestContext } from '../context/request-context';
import { withUiUri } from '../apps/tool-ui';
import { DefinitionError } from '../definition-error';
import type { EntryList, ListKind } from '../registry/entry-list';
import type { PromptEntry, ResourceEntry, TemplateEntry, ToolEntry } from '../registry/entry-types';
import type { Registry } from '../registry/registry';
import { UriTemplate } from '../uri-template';

/** A namespace: what tool and prompt names gain before `_`, and resource URIs as their first segment. */
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/)?/;

/**
 * How a mounted server's names and URIs appear in the server that mounts it, and back:
 *
 *   tool, prompt        `name`              → `<ns>_name`
 *   resource, template  `scheme://rest`     → `scheme://<ns>/rest`
 *                       `scheme:rest`       → `scheme:<ns>:rest`   (no authority: URNs and the like)
 *
 * The scheme is kept (clients pick handlers by it), and each form reverses exactly.
 */
export class Namespace {
  constructor(readonly name: string) {
    if (!NAMESPACE.test(name)) throw new DefinitionError(`mount: namespace "${name}" must be 1-64 letters, digits or "-", starting with a letter or digit`);
  }

  name_(name: string): string {
    return `${this.name}_${name}`;
  }

  uri(uri: string): string {
    const match = SCHEME.exec(uri);
    if (!match) throw new DefinitionError(`mount "${this.name}": "${uri}" has no URI scheme to keep`);
    const rest = uri.slice(match[0].length);
    return match[2] ? `${match[1]}://${this.name}/${rest}` : `${match[1]}:${this.name}:${rest}`;
  }

  /** The mounted server's own URI for one in this namespace, or undefined when it is not in it. */
  originalUri(uri: string): string | undefined {
    const match = SCHEME.exec(uri);
    if (!match) return undefined;
    const rest = uri.slice(match[0].length);
    const marker = match[2] ? `${this.name}/` : `${this.name}:`;
    if (!rest.startsWith(marker)) return undefined;
    return `${match[1]}:${match[2] ?? ''}${rest.slice(marker.length)}`;
  }
}

/** What mounting needs of the server mounted: its live registry and its own server-wide middleware. */
export interface MountSource {
  readonly registry: Registry;
  /** `@Server({ middleware })` of the mounted class: runs around each of its entries' calls in the mounting server. */
  readonly middleware: readonly Middleware[];
}

/**
 * Mirrors a server's registry into another's under a namespace, and keeps it mirrored: entries
 * added, replaced, removed, enabled or disabled there are here too (so clients hear list_changed).
 * A mirrored entry is the original with its name or URI namespaced and the mounted server's own
 * middleware before its own: its handler, validation, scopes, visibility and middleware still apply.
 */
export function mountRegistry(into: Registry, namespace: Namespace, source: MountSource, describe: string): void {
  // A mounted handler names resources by its own URIs: what it says changed is told in this server's.
  const scoped = (ctx: RequestContext): RequestContext => {
    const view = Object.create(ctx) as RequestContext;
    view.notifyResourceUpdated = (uri: string) => ctx.notifyResourceUpdated(namespace.uri(uri));
    return view;
  };
  const mirrors: Mirror<object>[] = [
    mirror(source.registry.tools, into.tools, (e: ToolEntry) => {
      const name = namespace.name_(e.definition.name);
      // Its view moved under the namespace with the server's other resources.
      const definition = withUiUri({ ...e.definition, name }, (uri) => namespace.uri(uri));
      return [name, { ...e, definition, handler: (input: unknown, ctx: RequestContext) => e.handler(input, scoped(ctx)) }];
    }),
    mirror(source.registry.prompts, into.prompts, (e: PromptEntry) => {
      const name = namespace.name_(e.definition.name);
      return [name, { ...e, definition: { ...e.definition, name }, handler: (args: unknown, ctx: RequestContext) => e.handler(args, scoped(ctx)) }];
    }),
    mirror(source.registry.resources, into.resources, (e: ResourceEntry) => {
      const uri = namespace.uri(e.definition.uri);
      return [uri, { ...e, definition: { ...e.definition, uri }, handler: (ctx: RequestContext) => e.handler(scoped(ctx)) }];
    }),
    mirror(source.registry.templates, into.templates, (e: TemplateEntry) => {
      const uriTemplate = namespace.uri(e.definition.uriTemplate);
      return [
        uriTemplate,
        {
          ...e,
          definition: { ...e.definition, uriTemplate },
          template: UriTemplate.parse(uriTemplate),
          handler: (variables: Record<string, string | string[]>, ctx: RequestContext) => e.handler(variables, scoped(ctx)),
        },
      ];
    }),
  ] as Mirror<object>[];
  const withMiddleware = <E extends { middleware?: readonly Middleware[]; source: string }>(entry: E): E =>
    source.middleware.length === 0 && !entry.middleware ? entry : { ...entry, middleware: [...source.middleware, ...(entry.middleware ?? [])] };
  for (const m of mirrors) m.sync(withMiddleware, describe, true);
  source.registry.onChange((kind: ListKind) => {
    for (const m of mirrors) if (m.kind === kind) m.sync(withMiddleware, describe, false);
  });
}

interface Mirror<E> {
  readonly kind: ListKind;
  sync(prepare: (entry: E & { source: string }) => E, describe: string, first: boolean): void;
}

function mirror<E extends { source: string }>(from: EntryList<E>, to: EntryList<E>, rename: (entry: E) => [string, E]): Mirror<E> {
  /** What this mount put in `to`: its key there, by the original's key, with the original entry it came from. */
  const placed = new Map<string, { key: string; original: E }>();
  return {
    kind: from.kind,
    sync(prepare, describe, first) {
      const seen = new Set<string>();
      for (const key of from.keys()) {
        const original = from.get(key);
        if (!original) continue; // disabled there: absent here
        seen.add(key);
        const known = placed.get(key);
        if (known && known.original === original) continue;
        const [mountedKey, renamed] = rename(original);
        const entry = prepare({ ...renamed, source: `${describe} → ${original.source}` });
        const clash = to.get(mountedKey) ?? (to.has(mountedKey) ? ({ source: 'a disabled entry' } as E) : undefined);
        if (clash && !known) {
          const message = `${describe}: ${from.kind} "${mountedKey}" (${original.source}) clashes with "${mountedKey}" (${clash.source})`;
          if (first) throw new DefinitionError(message);
          // A clash appearing later (the mounted server added an entry at run time) leaves the existing entry in place.
          continue;
        }
        to.add(mountedKey, entry, { replace: known !== undefined });
        placed.set(key, { key: mountedKey, original });
      }
      for (const [key, { key: mountedKey }] of placed) {
        if (seen.has(key)) continue;
        to.remove(mountedKey);
        placed.delete(key);
      }
    },
  };
}
