import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  InitializeResult,
  Meta,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../protocol/types';
import type { Task } from '../stores/task-store';
import type { DetailedTask } from '../tasks/tasks-extension';
import type { RequestContext } from '../context/request-context';
import type { MethodHandler } from '../context/handler-types';

/**
 * What each method's handler answers, keyed by the method's name, per era. Params arrive as the
 * client sent them (untrusted `Record<string, unknown>`): each handler checks its own with the
 * helpers in params.ts, so only results are typed here. An era's table (eras/<era>/methods.ts) is
 * checked against its map: a handler cannot be filed under a method whose result it does not give.
 */

/** A result with nothing in it but, perhaps, `_meta`. */
export interface EmptyResult {
  _meta?: Meta;
}

interface Page {
  nextCursor?: string;
}

/** The methods both eras serve with the same handlers. */
export interface SharedResults {
  'tools/list': { tools: Tool[] } & Page;
  /** A legacy task-augmented call answers `{ task }`; a modern call that became a task, the extension's task. */
  'tools/call': CallToolResult | { task: Task } | Record<string, unknown>;
  'resources/list': { resources: Resource[] } & Page;
  'resources/templates/list': { resourceTemplates: ResourceTemplate[] } & Page;
  'resources/read': ReadResourceResult;
  'prompts/list': { prompts: Prompt[] } & Page;
  'prompts/get': GetPromptResult;
  'completion/complete': CompleteResult;
}

/** 2025-11-25 and earlier. */
export interface LegacyResults extends SharedResults {
  initialize: InitializeResult;
  ping: EmptyResult;
  'logging/setLevel': EmptyResult;
  'resources/subscribe': EmptyResult;
  'resources/unsubscribe': EmptyResult;
  'tasks/get': Task;
  'tasks/result': Record<string, unknown>;
  'tasks/list': { tasks: Task[] } & Page;
  'tasks/cancel': Task;
}

/** server/discover's answer (2026-07-28); the dispatcher adds resultType, serverInfo and caching hints. */
export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** 2026-07-28. */
export interface ModernResults extends SharedResults {
  'server/discover': DiscoverResult;
  'subscriptions/listen': EmptyResult;
}

/** What the tasks extension's methods answer (2026-07-28; served through the extension API). */
export interface ModernTaskResults {
  'tasks/get': DetailedTask;
  'tasks/update': EmptyResult;
  'tasks/cancel': EmptyResult;
}

/** A handler that answers with `R`. */
export type Answers<R> = (params: Record<string, unknown>, ctx: RequestContext) => Promise<R> | R;

/** An era's table: each method of its result map, with a handler that answers what the method answers. */
export type MethodTable<Results> = { readonly [M in keyof Results]: Answers<Results[M]> };

/** The dispatch map of a typed table: the one place where results widen to plain JSON objects. */
export function methodMap<Results>(table: MethodTable<Results>): ReadonlyMap<string, MethodHandler> {
  return new Map(Object.entries(table) as [string, MethodHandler][]);
}
