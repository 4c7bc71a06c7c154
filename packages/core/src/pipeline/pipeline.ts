import type { Logger } from 'pino';
import { ErrorCode, McpError } from '../protocol/errors';
import { errorResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc';
import type { Registry } from '../registry/registry';
import type { MessageChannel } from '../context/channel';
import type { RequestContext } from '../context/request-context';
import type { MethodHandler } from '../context/handler-types';
import { LazyAbort } from '../context/lazy-abort';
import { loggedChannel, logMessage, type MessageLogTarget } from '../context/message-log';
import { logRequest } from '../context/request-log';
import { extendLogger } from '../context/logger-lineage';
import { InputNeeded } from '../protocol/input-required';
import type { Era } from '../context/request-env';
import { text } from '../content/helpers';
import { toCallToolResult } from '../content/normalize';
import type { RequestTrace, Telemetry } from '../telemetry/telemetry';
import { checkScopes, inFlightRefusal, scopeRefusal, type Refusal } from './admission';
import type { EraFront, Inbound, Outcome } from './era-front';
import { RequestMiddlewareContext, runChain, type Middleware } from '../context/middleware';
import { rateLimitSubject } from './rate-limit-subject';
import { promised } from '../promised';
import type { RateLimiter, RateLimitReport } from './rate-limits';

/** What the pipeline needs of the server it serves: narrow, so that it never reaches for the engine. */
export interface PipelineHost {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly telemetry: Telemetry;
  readonly debugMessageBytes: number;
  readonly maxRequestsInFlight: number;
  readonly rateLimiter: RateLimiter;
}

/** A request admission let through: the pipeline runs it. */
export interface Admitted {
  readonly refusal?: undefined;
  readonly handler: MethodHandler;
  readonly abort: LazyAbort;
  /** Where it stands with the rate limits that applied to it (HTTP sends it as RateLimit headers). */
  readonly rateLimit?: RateLimitReport;
}

/** Admission's verdict on one request. */
export type Admission = Admitted | { readonly refusal: Refusal };

/** The methods each era serves (its own table plus what extensions add). */
export type MethodTables = Readonly<Record<Era, ReadonlyMap<string, MethodHandler>>>;

/**
 * The one way every request goes, whatever its era or transport:
 *
 *   classify (the era's front, the method's handler) → admission (the era's rules, scopes, the
 *   in-flight cap) → middleware (server-wide, then the entry's class and method) → handler →
 *   the era shapes the outcome → the request's log line and span end.
 *
 * Transports call `admit` when a refusal must become something of their own before a response
 * starts (an HTTP status), then `run`; others call `handle`, which does both.
 */
export class RequestPipeline {
  constructor(
    private readonly host: PipelineHost,
    private readonly methods: MethodTables,
    /** Server-wide middleware: options first, then `@Server`, then extensions'. */
    private readonly middleware: readonly Middleware[],
  ) {}

  /** The handler `method` has in `era`, if it has one. */
  handlerOf(era: Era, method: string): MethodHandler | undefined {
    return this.methods[era].get(method);
  }

  /** Whether `era` serves `method`. */
  serves(era: Era, method: string): boolean {
    return this.methods[era].has(method);
  }

  /**
   * Admission, once: the era's own rules, the scopes of the entry the request names, the in-flight
   * cap of where it counts, then its rate limits. A promise only when some rate limit applies (its
   * store may be shared): a transport awaits it before it answers anything. The request holds its
   * in-flight place from the start, so requests are admitted in the order they came, whether their
   * limits are checked at once or not; a rate refusal gives the place back.
   */
  admit(front: EraFront, inbound: Inbound): Admission | Promise<Admission> {
    const { request } = inbound;
    const handler = this.methods[front.era].get(request.method);
    const refused = front.refuse(request, handler);
    if (refused) return { refusal: { kind: refused.error.code === ErrorCode.MethodNotFound ? 'method' : 'era', response: refused } };
    const principal = inbound.principal ?? front.principal;
    const scope = scopeRefusal(this.host.registry, request.id, request.method, request.params, principal);
    if (scope) return { refusal: scope };
    const abort = inbound.abort ?? new LazyAbort();
    if (front.inFlight) {
      const bound = front.inFlight.bound;
      const cap = bound?.max ?? this.host.maxRequestsInFlight;
      const verdict = front.inFlight.enter(request.id, abort, cap);
      // Only a legacy session is a session: a modern request (HTTP or stdio) counts for its client.
      const holder = bound?.holder ?? (front.era === 'legacy' ? 'this session' : 'this client');
      if (verdict !== 'ok') return { refusal: inFlightRefusal(request.id, verdict, cap, { limit: bound?.limit, holder }) };
    }
    const limits = this.host.rateLimiter.applying(request.method, request.params);
    if (!limits) return { handler: handler!, abort };
    return this.host.rateLimiter.check(limits, rateLimitSubject(front, inbound, principal), request.id).then(
      (verdict) => {
        if ('report' in verdict) return { handler: handler!, abort, rateLimit: verdict.report };
        front.inFlight?.leave(request.id, abort);
        return verdict;
      },
      (err: unknown) => {
        front.inFlight?.leave(request.id, abort);
        throw err;
      },
    );
  }

  /** Admits and runs one request; resolves to its response, or null when it was cancelled (no response is due). */
  handle(front: EraFront, inbound: Inbound, channel: MessageChannel): Promise<JsonRpcResponse | null> {
    const admission = this.admit(front, inbound);
    return admission instanceof Promise ? admission.then((a) => this.run(front, inbound, channel, a)) : promised(() => this.run(front, inbound, channel, admission));
  }

  /**
   * Runs a request admission has judged: a refusal is answered (and logged, and traced) as any other
   * error. A request whose handler answers at once is answered at once, not as a promise: the common
   * call costs no promise, no await and no microtask at any level between here and the handler.
   */
  run(front: EraFront, inbound: Inbound, channel: MessageChannel, admission: Admission): JsonRpcResponse | null | Promise<JsonRpcResponse | null> {
    const { request } = inbound;
    const telemetry = this.host.telemetry;
    const trace = telemetry.startRequest(request.method, request.id, request.params, { sessionId: front.telemetrySessionId, origin: inbound.origin ?? front.origin });
    let logger = inbound.logger ?? this.host.logger;
    const traced = trace?.logFields();
    if (traced) logger = extendLogger(logger, traced);
    // Nothing is timed or serialised for the log unless its level is on.
    const startedAt = logger.isLevelEnabled('info') ? performance.now() : -1;
    const messages: MessageLogTarget | undefined =
      startedAt >= 0 && logger.isLevelEnabled('debug') ? { logger, session: front.logSessionId, maxBytes: this.host.debugMessageBytes } : undefined;
    if (messages) {
      logMessage(messages, 'in', request);
      channel = loggedChannel(channel, messages);
    }
    const done: Ran = { front, request, messages, startedAt, logger, trace };
    if (admission.refusal) return ended(done, admission.refusal.response);
    let response: JsonRpcResponse | null | Promise<JsonRpcResponse | null>;
    try {
      response = trace ? trace.run(() => this.respond(front, inbound, channel, admission, logger, trace)) : this.respond(front, inbound, channel, admission, logger, undefined);
    } catch (err) {
      throw escaped(done, admission, err);
    }
    if (!(response instanceof Promise)) {
      front.inFlight?.leave(request.id, admission.abort);
      return ended(done, response);
    }
    return response.then(
      (settled) => {
        front.inFlight?.leave(request.id, admission.abort);
        return ended(done, settled);
      },
      (err: unknown) => {
        throw escaped(done, admission, err);
      },
    );
  }

  private respond(
    front: EraFront,
    inbound: Inbound,
    channel: MessageChannel,
    admitted: Admitted,
    logger: Logger,
    trace: Parameters<EraFront['open']>[5],
  ): JsonRpcResponse | null | Promise<JsonRpcResponse | null> {
    const { request } = inbound;
    const opened = front.open(request, inbound, channel, admitted.abort, logger, trace);
    if (!isContext(opened)) return opened;
    const ctx = opened;
    const params = request.params ?? {};
    let result: Record<string, unknown> | Promise<Record<string, unknown>>;
    try {
      result = this.invoke(front, admitted.handler, params, ctx);
    } catch (err) {
      return answered(front, request, ctx, failed(err, trace), logger);
    }
    if (!(result instanceof Promise)) return answered(front, request, ctx, { ok: true, result }, logger);
    return result.then(
      (value) => answered(front, request, ctx, { ok: true, result: value }, logger),
      (err: unknown) => answered(front, request, ctx, failed(err, trace), logger),
    );
  }

  /** The middleware chain around the handler; with none that applies, the handler alone. */
  private invoke(front: EraFront, handler: MethodHandler, params: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>> {
    if (this.middleware.length === 0 && !this.host.registry.hasEntryMiddleware) return front.invoke(handler, params, ctx);
    const mctx = new RequestMiddlewareContext(ctx, params);
    const inner = () => this.innermost(front, handler, mctx);
    const chained = this.middleware.length > 0 ? runChain(this.middleware, mctx, inner) : inner();
    return chained.then(
      (value) => resultOf(ctx.method, value),
      (err) => {
        // A tool's failure is a result the model can act on, whether its handler or a middleware threw it.
        if (ctx.method !== 'tools/call' || err instanceof McpError || err instanceof InputNeeded || ctx.aborted) throw err;
        ctx.host.logger.warn({ err, requestId: ctx.requestId }, 'tools/call middleware failed');
        const message = err instanceof Error ? err.message : String(err);
        return { content: [text(message || 'The tool failed')], isError: true };
      },
    );
  }

  /** The entry's own middleware (class, then method) around the handler, with the params as the server-wide chain left them. */
  private innermost(front: EraFront, handler: MethodHandler, mctx: RequestMiddlewareContext): Promise<unknown> {
    const ctx = mctx.request;
    let params: Record<string, unknown>;
    try {
      params = this.paramsAfter(mctx);
    } catch (err) {
      return Promise.reject(err);
    }
    const own = this.host.registry.hasEntryMiddleware ? this.entryChain(ctx.method, params) : undefined;
    if (!own || own.length === 0) return promised(() => front.invoke(handler, params, ctx));
    // The entry's own middleware may change the params again: checked again before the handler.
    return runChain(own, mctx, async () => front.invoke(handler, this.paramsAfter(mctx), ctx));
  }

  /** The params as middleware left them: an object, naming nothing the caller may not use. */
  private paramsAfter(mctx: RequestMiddlewareContext): Record<string, unknown> {
    const params = mctx.params;
    if (params === null || typeof params !== 'object' || Array.isArray(params)) throw new TypeError('a middleware set params to something that is not an object');
    // A middleware may have changed what the request names, in place or with new params: whatever it
    // names now must be an entry the caller may use (a lookup; admission checked what it first named).
    checkScopes(this.host.registry, mctx.request.method, params, mctx.request.principal);
    return params;
  }

  /** The middleware of the entry a tools/call, prompts/get or resources/read names (its class's, then its method's). */
  private entryChain(method: string, params: Record<string, unknown>): readonly Middleware[] | undefined {
    const registry = this.host.registry;
    switch (method) {
      case 'tools/call':
        return typeof params.name === 'string' ? registry.tools.get(params.name)?.middleware : undefined;
      case 'prompts/get':
        return typeof params.name === 'string' ? registry.prompts.get(params.name)?.middleware : undefined;
      case 'resources/read':
        return typeof params.uri === 'string' ? registry.entryForUri(params.uri)?.middleware : undefined;
      default:
        return undefined;
    }
  }
}

function isContext(value: RequestContext | JsonRpcResponse): value is RequestContext {
  return !('jsonrpc' in value);
}

/** What a chain resolved with, as a result: an object as it is; for tools/call, a plain value becomes content as a handler's would. */
function resultOf(method: string, value: unknown): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (method === 'tools/call') return toCallToolResult(value) as unknown as Record<string, unknown>;
  throw new McpError(ErrorCode.InternalError, `A middleware answered ${method} with ${value === undefined ? 'nothing' : typeof value}, not a result object`);
}

declare module '../context/services' {
  interface ServerServices {
    /** Where every request of either era goes. */
    readonly pipeline: RequestPipeline;
  }
}

/** What a run ends with, whichever way it ends. */
interface Ran {
  readonly front: EraFront;
  readonly request: JsonRpcRequest;
  readonly messages: MessageLogTarget | undefined;
  readonly startedAt: number;
  readonly logger: Logger;
  readonly trace: RequestTrace | undefined;
}

/** The response of a run that ended: logged, and its span ended. */
function ended(ran: Ran, response: JsonRpcResponse | null): JsonRpcResponse | null {
  if (ran.messages && response) logMessage(ran.messages, 'out', response);
  if (ran.startedAt >= 0) logRequest(ran.logger, ran.front.logSessionId, ran.request, response, ran.startedAt);
  ran.trace?.end(response, ran.front.protocolVersion);
  return response;
}

/** What escaped a run (the transport answers it with -32603): the span still ends, the in-flight place is given back. */
function escaped(ran: Ran, admitted: Admitted, err: unknown): unknown {
  ran.trace?.exception(err);
  ran.trace?.end(errorResponse(ran.request.id, ErrorCode.InternalError, err instanceof Error ? err.message : String(err)), ran.front.protocolVersion);
  ran.front.inFlight?.leave(ran.request.id, admitted.abort);
  return err;
}

function failed(err: unknown, trace: RequestTrace | undefined): Outcome {
  trace?.exception(err);
  return { ok: false, error: err };
}

/** The handler is done: its outcome shaped into the response by the era. */
function answered(front: EraFront, request: JsonRpcRequest, ctx: RequestContext, outcome: Outcome, logger: Logger): JsonRpcResponse | null {
  ctx.done = true;
  return front.answer(request, ctx, outcome, logger);
}
