import type { RateLimitOptions } from '../policies/rate-limit';
import type { Icon, Implementation, Meta, PromptArgument, Resource, ResourceTemplate, TaskSupport, ToolAnnotations } from '../protocol/types';
import type { JsonSchema } from '../schema/json-schema';
import type { ArgumentLimits } from '../schema/argument-limits';
import type { CacheHint } from '../protocol/cache-hint';
import type { Middleware } from '../context/middleware';
import type { VisibilityRule } from '../auth/principal';
import type { McpExtension } from '../context/extension';
import { optionKeys } from './check-options';
import type { SkillsOption } from './skills-options';

export type { InlineSkill, SkillSource, SkillsOption, SkillsSettings, SkillsEngineOptions } from './skills-options';
import type { ToolUi } from '../apps/app-types';

/** What `@Server` accepts: the server's identity and its instructions to the model. */
export interface ServerOptions extends Implementation {
  /** Told to the client at initialize: how the model should use this server. */
  instructions?: string;
  /** Middleware around every request's handler, after those of the server's options (docs/middleware.md). */
  middleware?: readonly Middleware[];
  /** Protocol extensions this server serves, after those of the server's options (docs/architecture.md). */
  extensions?: readonly McpExtension[];
  /** Large catalogs: over `threshold` visible tools, tools/list shows `pinned` and a `search_tools` tool (docs/policies.md). */
  toolSearch?: ToolSearchOptions;
  /**
   * Servers served inside this one, each under its namespace: `{ billing: BillingServer }`, classes
   * made with no arguments, one instance per server that mounts them (mount an instance you hold
   * with `this.mount()`). Their tools and prompts become `billing_<name>`, their resource URIs
   * `scheme://billing/...` (docs/composition.md).
   */
  mount?: Readonly<Record<string, new () => object>>;
  /** Rate limits on every request to this server, each counted per its `by` (docs/policies.md). */
  rateLimit?: RateLimitOptions | readonly RateLimitOptions[];
  /**
   * Skills this server serves (the io.modelcontextprotocol/skills extension): a folder of skills
   * (`'./skills'`, resolved against the file that declares the class), a skill written in code, a
   * list of both, or `{ sources, watch, cache, directoryRead }` (docs/skills.md).
   */
  skills?: SkillsOption;
}

export interface ToolSearchOptions {
  /** How many tools a caller may see before tools/list shows search instead of the catalog. */
  threshold: number;
  /** Tools always listed (when the caller may see them). */
  pinned?: string[];
}

/** The fields of the spec's Implementation (serverInfo), in 2025-11-25 and 2026-07-28 alike. */
export const IMPLEMENTATION_KEYS = optionKeys<Implementation>()('name', 'title', 'version', 'description', 'icons', 'websiteUrl');

/** Every key `@Server` takes; checked when the engine is built. */
export const SERVER_OPTION_KEYS = optionKeys<ServerOptions>()(...IMPLEMENTATION_KEYS, 'instructions', 'middleware', 'extensions', 'toolSearch', 'mount', 'rateLimit', 'skills');

/** serverInfo from `@Server`'s options: the Implementation fields set, nothing else (instructions, middleware...). */
export function implementationOf(options: ServerOptions): Implementation {
  const info: Record<string, unknown> = {};
  for (const key of IMPLEMENTATION_KEYS) if (options[key] !== undefined) info[key] = options[key];
  return info as unknown as Implementation;
}

/** Completes one argument: returns candidate values for what the user has typed so far. */
export type Completer = (value: string, context: CompletionContext) => CompletionValues | Promise<CompletionValues>;
export type CompletionValues = string[] | { values: string[]; total?: number; hasMore?: boolean };
export interface CompletionContext {
  /** Values the client already resolved for the other arguments. */
  arguments: Record<string, string>;
}

export interface ToolOptions {
  /** Defaults to the method name. Must follow the spec's guidance: 1–128 of A–Z a–z 0–9 _ - . */
  name?: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  annotations?: ToolAnnotations;
  _meta?: Meta;
  /** The input class, when the parameter's design type cannot say it (plain JavaScript). */
  input?: new () => object;
  /** A raw JSON Schema for the input, used as authored and validated with a JSON Schema validator. */
  inputSchema?: JsonSchema;
  /** The output class: the tool then lists `outputSchema` and returns `structuredContent`. */
  output?: new () => object;
  /** A raw JSON Schema for the output, as an alternative to `output`. */
  outputSchema?: JsonSchema;
  /**
   * An MCP Apps view for this tool's results: the `ui://` URI of an `@AppResource` (or of a resource
   * with the app MIME type), or `{ resourceUri, visibility }` where `["app"]` keeps the tool for the
   * view to call (docs/apps.md).
   */
  ui?: ToolUi;
  taskSupport?: TaskSupport;
  /** OAuth scopes a caller needs to use this (HTTP with auth, or stdio with a configured principal). */
  scopes?: string[];
  /** Labels for the server's `includeTags` / `excludeTags` (docs/policies.md). */
  tags?: string[];
  /** Who may see this: a caller it returns false for finds it in no list, and using it answers as for an unknown name. */
  visible?: VisibilityRule;
  /** What this tool's arguments may carry, over the server's `argumentLimits` (docs/tools.md). */
  limits?: ArgumentLimits;
}

/** A resource's listed fields; `name` defaults to the method name. */
export interface ResourceOptions extends Omit<Resource, 'name'> {
  name?: string;
  /**
   * Caching hints on this resource's resources/read results for 2026-07-28 clients: how long
   * (`ttlMs`) they may use a result without reading again, and whether shared caches may keep it
   * (`cacheScope`: "public" only when the content is the same for every caller). What is left out
   * comes from the server's `cache` option. Older clients get no hints.
   */
  cache?: Partial<CacheHint>;
  /** OAuth scopes a caller needs to use this (HTTP with auth, or stdio with a configured principal). */
  scopes?: string[];
  /** Labels for the server's `includeTags` / `excludeTags` (docs/policies.md). */
  tags?: string[];
  /** Who may see this: a caller it returns false for finds it in no list, and using it answers as for an unknown name. */
  visible?: VisibilityRule;
}

/** A template's listed fields; `name` defaults to the method name. */
export interface ResourceTemplateOptions extends Omit<ResourceTemplate, 'name'> {
  name?: string;
  /** Caching hints on resources/read results for every URI the template matches (see ResourceOptions.cache). */
  cache?: Partial<CacheHint>;
  /** Completers for template variables, keyed by variable name. Called with `this` bound to the server. */
  complete?: Record<string, Completer>;
  /** OAuth scopes a caller needs to use this (HTTP with auth, or stdio with a configured principal). */
  scopes?: string[];
  /** Labels for the server's `includeTags` / `excludeTags` (docs/policies.md). */
  tags?: string[];
  /** Who may see this: a caller it returns false for finds it in no list, and using it answers as for an unknown name. */
  visible?: VisibilityRule;
}

export type PromptArgumentOptions = PromptArgument;

export interface PromptOptions {
  name?: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Meta;
  /** Arguments, when they are not taken from the parameter's class. */
  arguments?: PromptArgumentOptions[];
  /** The argument class, when the parameter's design type cannot say it. */
  input?: new () => object;
  /** Completers for arguments, keyed by argument name. Called with `this` bound to the server. */
  complete?: Record<string, Completer>;
  /** OAuth scopes a caller needs to use this (HTTP with auth, or stdio with a configured principal). */
  scopes?: string[];
  /** Labels for the server's `includeTags` / `excludeTags` (docs/policies.md). */
  tags?: string[];
  /** Who may see this: a caller it returns false for finds it in no list, and using it answers as for an unknown name. */
  visible?: VisibilityRule;
}

/** Names the prompt argument or template variable a `@Complete` method completes. */
export type CompleteOptions = { prompt: string; argument: string } | { template: string; argument: string };
