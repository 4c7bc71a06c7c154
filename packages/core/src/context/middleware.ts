import type { Principal } from '../auth/principal';
import type { RequestId } from '../protocol/jsonrpc';
import type { ClientCapabilities, Implementation } from '../protocol/types';
import type { RequestContext } from './request-context';
import type { McpLogger } from './mcp-logger';
import type { Era } from './request-env';
import { promised } from '../promised';

/** Runs the rest of the chain (the next middleware, at the end the handler) and resolves with what it returned. */
export type Next = () => Promise<unknown>;

/**
 * Code between a request and its handler, in onion order: work before `next()`, after it, or
 * instead of it. Return `next()`'s value (or a rewritten one) to answer with it; return anything
 * without calling `next()` to answer without the handler; throw an McpError for a JSON-RPC error.
 */
export type Middleware = (ctx: MiddlewareContext, next: Next) => Promise<unknown>;

/** What a middleware sees of one request. One per request, shared by every middleware of its chain. */
export interface MiddlewareContext {
  readonly method: string;
  /** The request's params; replace them (or change them) before `next()` and the handler gets the new ones. */
  params: Record<string, unknown>;
  readonly era: Era;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  /** Who is calling (undefined without auth). */
  readonly principal: Principal | undefined;
  /** The 2025-11-25 session's id; undefined in 2026-07-28, which has no sessions. */
  readonly sessionId: string | undefined;
  /** The tool a tools/call names (read from the current params). */
  readonly toolName: string | undefined;
  /** The prompt a prompts/get (or a completion of a prompt argument) names. */
  readonly promptName: string | undefined;
  /** The resource a resources/read, subscribe or unsubscribe names (or a completion of a template variable). */
  readonly resourceUri: string | undefined;
  /** Per-request values middleware pass to each other (and handlers read as `ctx.state`). */
  readonly state: Map<string | symbol, unknown>;
  /** Logs to the server's log and, at the client's level, to the client. */
  readonly log: McpLogger;
  /** Aborted when the client cancels the request or the server stops it. */
  readonly signal: AbortSignal;
  /** Reports progress on the request (sent only when the client asked for progress). */
  progress(progress: number, total?: number, message?: string): void;
  /** The handler's own context: everything else a handler can reach (elicit, sample, roots, span...). */
  readonly request: RequestContext;
}

/** The class behind MiddlewareContext: getters on a class, never on a per-request object literal (they keep it alive in V8). */
export class RequestMiddlewareContext implements MiddlewareContext {
  constructor(
    readonly request: RequestContext,
    public params: Record<string, unknown>,
  ) {}

  get method(): string {
    return this.request.method;
  }
  get era(): Era {
    return this.request.env.era;
  }
  get requestId(): RequestId {
    return this.request.requestId;
  }
  get protocolVersion(): string {
    return this.request.env.protocolVersion;
  }
  get clientInfo(): Implementation | undefined {
    return this.request.env.clientInfo;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.request.env.clientCapabilities;
  }
  get principal(): Principal | undefined {
    return this.request.env.principal;
  }
  get sessionId(): string | undefined {
    return this.request.sessionId;
  }
  get toolName(): string | undefined {
    return this.request.method === 'tools/call' ? stringOf(this.params.name) : undefined;
  }
  get promptName(): string | undefined {
    if (this.request.method === 'prompts/get') return stringOf(this.params.name);
    const ref = completionRef(this.request.method, this.params);
    return ref?.type === 'ref/prompt' ? stringOf(ref.name) : undefined;
  }
  get resourceUri(): string | undefined {
    const method = this.request.method;
    if (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe') return stringOf(this.params.uri);
    const ref = completionRef(method, this.params);
    return ref?.type === 'ref/resource' ? stringOf(ref.uri) : undefined;
  }
  get state(): Map<string | symbol, unknown> {
    return this.request.state;
  }
  get log(): McpLogger {
    return this.request.log;
  }
  get signal(): AbortSignal {
    return this.request.signal;
  }
  progress(progress: number, total?: number, message?: string): void {
    this.request.progress(progress, total, message);
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function completionRef(method: string, params: Record<string, unknown>): { type?: unknown; name?: unknown; uri?: unknown } | undefined {
  if (method !== 'completion/complete') return undefined;
  const ref = params.ref;
  return ref !== null && typeof ref === 'object' ? (ref as { type?: unknown }) : undefined;
}

/**
 * Runs `chain` around `last`, in order. Each middleware may call `next` once; a second call is a
 * bug in that middleware and fails its request.
 */
export function runChain(chain: readonly Middleware[], ctx: MiddlewareContext, last: Next): Promise<unknown> {
  let reached = -1;
  const step = (i: number): Promise<unknown> => {
    if (i <= reached) return Promise.reject(new Error('a middleware called next() more than once'));
    reached = i;
    if (i === chain.length) return last();
    return promised(() => chain[i]!(ctx, () => step(i + 1)));
  };
  return step(0);
}

/** Checks a middleware list given as an option or to a decorator, naming where it came from. */
export function checkMiddleware(list: unknown, where: string): readonly Middleware[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new TypeError(`${where}: middleware must be an array of functions`);
  list.forEach((fn, i) => {
    if (typeof fn !== 'function') throw new TypeError(`${where}: middleware[${i}] is ${fn === null ? 'null' : typeof fn}, not a function`);
  });
  return Object.freeze([...list]) as readonly Middleware[];
}
