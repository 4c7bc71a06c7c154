import { EntryList, type ListKind } from './entry-list';
import type { PromptEntry, ResourceEntry, TemplateEntry, ToolEntry } from './entry-types';
import { buildToolEntry, type ToolSpec } from './build-tool-entry';
import { buildResourceEntry, buildTemplateEntry, type ResourceSpec, type TemplateSpec } from './build-resource-entries';
import { buildPromptEntry, type PromptSpec } from './build-prompt-entry';
import type { TagFilter } from './entry-visibility';
import type { ToolSearchOptions } from '../metadata/options';

export type RegistryListener = (kind: ListKind) => void;

/**
 * Everything a server offers. Built by the scanner at startup and changeable at runtime:
 * each change is reported to listeners (the engine turns them into list_changed notifications).
 */
/** Says why a tool, prompt or resource a client named is absent, or undefined when it does not know. */
export type AbsenceExplainer = (kind: 'tool' | 'prompt' | 'resource', key: string) => string | undefined;

export class Registry {
  private readonly listeners = new Set<RegistryListener>();
  private readonly notify = (kind: ListKind) => {
    for (const listener of this.listeners) listener(kind);
  };

  readonly tools = new EntryList<ToolEntry>('tools', this.notify);
  readonly resources = new EntryList<ResourceEntry>('resources', this.notify);
  readonly templates = new EntryList<TemplateEntry>('resourceTemplates', this.notify);
  readonly prompts = new EntryList<PromptEntry>('prompts', this.notify);

  /** The server's `includeTags` / `excludeTags`: entries they leave out are served to no one (set by the engine). */
  tagFilter?: TagFilter;
  /** `@Server({ toolSearch })`, checked (set by the engine). */
  toolSearch?: ToolSearchOptions;

  /** Whether any entry carries middleware of its own (`@UseMiddleware`, or `middleware` in a runtime spec). */
  get hasEntryMiddleware(): boolean {
    return this.tools.hasMiddleware || this.prompts.hasMiddleware || this.resources.hasMiddleware || this.templates.hasMiddleware;
  }

  private readonly absence = new Set<AbsenceExplainer>();
  /** The kinds offered ahead of any entry (offer()). */
  readonly offered = new Set<'tools' | 'prompts' | 'resources' | 'tasks'>();

  /**
   * Offers a kind of entry even while none is registered (a gateway whose upstreams are still
   * starting): clients are told the capability at initialize, list it empty, and hear list_changed
   * when entries come. `tasks`: task-augmented calls, before any tool that may run as a task.
   */
  offer(kind: 'tools' | 'prompts' | 'resources' | 'tasks'): void {
    this.offered.add(kind);
  }

  /** Whether the server offers `kind`: it has such entries, or offers them anyway. */
  offers(kind: 'tools' | 'prompts' | 'resources'): boolean {
    if (kind === 'tools') return this.tools.size > 0 || this.offered.has(kind);
    if (kind === 'prompts') return this.prompts.size > 0 || this.offered.has(kind);
    return this.resources.size > 0 || this.templates.size > 0 || this.offered.has(kind);
  }

  /**
   * Lets something that removes entries for a while (a gateway whose upstream is down) say why a
   * name a client asks for is missing: the error then names the cause instead of "Unknown tool".
   */
  explainAbsence(explain: AbsenceExplainer): () => void {
    this.absence.add(explain);
    return () => this.absence.delete(explain);
  }

  /** Why `key` (a tool or prompt name, a resource URI) is not here, when one of the explainers knows. */
  whyAbsent(kind: 'tool' | 'prompt' | 'resource', key: string): string | undefined {
    if (this.absence.size === 0) return undefined;
    for (const explain of this.absence) {
      const reason = explain(kind, key);
      if (reason) return reason;
    }
    return undefined;
  }

  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds a tool at runtime; `replace` swaps a tool of the same name. */
  addTool(spec: ToolSpec, options?: { replace?: boolean }): ToolEntry {
    const entry = buildToolEntry(spec);
    this.tools.add(spec.name, entry, options);
    return entry;
  }

  addResource(spec: ResourceSpec, options?: { replace?: boolean }): ResourceEntry {
    const entry = buildResourceEntry(spec);
    this.resources.add(spec.uri, entry, options);
    return entry;
  }

  addResourceTemplate(spec: TemplateSpec, options?: { replace?: boolean }): TemplateEntry {
    const entry = buildTemplateEntry(spec);
    this.templates.add(spec.uriTemplate, entry, options);
    return entry;
  }

  addPrompt(spec: PromptSpec, options?: { replace?: boolean }): PromptEntry {
    const entry = buildPromptEntry(spec);
    this.prompts.add(spec.name, entry, options);
    return entry;
  }

  /** The template that matches a concrete URI, with its variables, first declared first. */
  matchTemplate(uri: string): { entry: TemplateEntry; variables: Record<string, string | string[]> } | undefined {
    for (const entry of this.templates.values()) {
      const variables = entry.template.match(uri);
      if (variables) return { entry, variables };
    }
    return undefined;
  }

  /** Whether a URI names something readable: a resource or a template match. */
  /** What serves `uri`: the resource with that exact URI, else the first template that matches it. */
  entryForUri(uri: string): ResourceEntry | TemplateEntry | undefined {
    return this.resources.get(uri) ?? this.matchTemplate(uri)?.entry;
  }

  knowsUri(uri: string): boolean {
    return this.entryForUri(uri) !== undefined;
  }
}

// The registry is a service every handler reaches through its context.
declare module '../context/services' {
  interface ServerServices {
    /** The live registry: what the server offers. */
    readonly registry: Registry;
  }
}
