import type { ScopedEntry } from '../auth/principal';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/types';
import type { Completer } from '../metadata/options';
import type { RequestContext } from '../context/request-context';
import type { ValidationIssue } from '../schema/class-validation';
import type { ArgumentLimits } from '../schema/argument-limits';
import type { HeaderParameter } from '../schema/header-parameters';
import type { CacheHint } from '../protocol/cache-hint';
import type { UriTemplate } from '../uri-template';
import type { Middleware } from '../context/middleware';
import type { RateLimitRule } from '../policies/rate-limit';

/**
 * Checks a value; `unknownProperties` says what an input class does with properties it does not
 * declare (raw schemas decide for themselves). The verdict comes at once where nothing asynchronous
 * is needed (the common case), else as a promise.
 */
export type Validator = (value: unknown, unknownProperties?: 'refuse' | 'drop') => ValidationVerdict | Promise<ValidationVerdict>;
export type ValidationVerdict = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

export type ToolHandler = (input: any, ctx: RequestContext) => unknown;
export type ResourceHandler = (ctx: RequestContext) => unknown;
export type TemplateHandler = (variables: Record<string, string | string[]>, ctx: RequestContext) => unknown;
export type PromptHandler = (args: any, ctx: RequestContext) => unknown;

export type InputClass = new () => object;

/** What the registry keeps for a tool: the listed definition plus what serving it needs. */
export interface ToolEntry extends ScopedEntry {
  /** Its own middleware (its class's, then its method's), run inside the server-wide chain for its requests only. */
  readonly middleware?: readonly Middleware[];
  /** Its own rate limits (`@RateLimit` on its class or method, or its spec's), counted for it alone. */
  readonly rateLimits?: readonly RateLimitRule[];
  readonly definition: Tool;
  readonly handler: ToolHandler;
  /** Turns raw arguments into the handler's input, or says why they are wrong. */
  readonly validateInput: Validator;
  /** Present when the tool declares an output schema. */
  readonly validateOutput?: Validator;
  /** Set when that schema is a raw JSON Schema: it checks JSON, so the value is made JSON before it is checked. */
  readonly outputChecksJson?: boolean;
  /** The tool's own argument limits, over the server's (`@Tool({ limits })`). */
  readonly limits?: ArgumentLimits;
  /** The arguments clients mirror into `Mcp-Param-*` headers (`x-mcp-header`), found when the tool was defined. */
  readonly headerParameters: readonly HeaderParameter[];
  readonly source: string;
}

export interface ResourceEntry extends ScopedEntry {
  /** Its own middleware (its class's, then its method's), run inside the server-wide chain for its requests only. */
  readonly middleware?: readonly Middleware[];
  /** Its own rate limits (`@RateLimit` on its class or method, or its spec's), counted for it alone. */
  readonly rateLimits?: readonly RateLimitRule[];
  readonly definition: Resource;
  readonly handler: ResourceHandler;
  /** Its own caching hints for resources/read (2026-07-28), over the server's. */
  readonly cache?: Readonly<Partial<CacheHint>>;
  readonly source: string;
}

export interface TemplateEntry extends ScopedEntry {
  /** Its own middleware (its class's, then its method's), run inside the server-wide chain for its requests only. */
  readonly middleware?: readonly Middleware[];
  /** Its own rate limits (`@RateLimit` on its class or method, or its spec's), counted for it alone. */
  readonly rateLimits?: readonly RateLimitRule[];
  readonly definition: ResourceTemplate;
  readonly template: UriTemplate;
  readonly handler: TemplateHandler;
  /** Its own caching hints for resources/read of the URIs it matches (2026-07-28), over the server's. */
  readonly cache?: Readonly<Partial<CacheHint>>;
  readonly completers: ReadonlyMap<string, Completer>;
  readonly source: string;
}

export interface PromptEntry extends ScopedEntry {
  /** Its own middleware (its class's, then its method's), run inside the server-wide chain for its requests only. */
  readonly middleware?: readonly Middleware[];
  /** Its own rate limits (`@RateLimit` on its class or method, or its spec's), counted for it alone. */
  readonly rateLimits?: readonly RateLimitRule[];
  readonly definition: Prompt;
  readonly handler: PromptHandler;
  readonly validateArguments: Validator;
  readonly completers: ReadonlyMap<string, Completer>;
  readonly source: string;
}
