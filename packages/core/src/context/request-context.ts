import type { Context, Span } from '@opentelemetry/api';
import type { Principal } from '../auth/principal';
import type { RequestId } from '../protocol/jsonrpc';
import type { ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitResult, Implementation, Meta, Root } from '../protocol/types';
import type { JsonSchema } from '../schema/json-schema';
import { elicit, elicitUrl, listRoots, sample, type ClientRequestOptions } from './client-requests';
import type { MessageChannel } from './channel';
import type { LazyAbort } from './lazy-abort';
import { LoggerOnDemand, McpLogger } from './mcp-logger';
import { extendLogger } from './logger-lineage';
import type { RequestEnv } from './request-env';
import type { RequestHost, ServerServices, SessionView } from './services';
import type { ChildSpan, RequestTrace } from '../telemetry/telemetry';
import { otelApi } from '../telemetry/otel-api';

/** The task a handler runs as (task-augmented tools/call), as its context sees it. */
export interface TaskHandle {
  readonly id: string;
  /** Marks the task input_required while it waits on the client, and working again after. */
  inputRequired(waiting: boolean): void;
}

/**
 * What a handler gets besides its input: the abort signal, progress, a logger that reaches the
 * client, and who is asking. One per request; everything per-request lives here, not in globals.
 * It reads the client through `env`, the same in both protocol eras.
 */
export class RequestContext {
  private logger?: McpLogger;
  private lastProgress = -Infinity;
  /** Set when the response has been produced: progress after that is dropped, as the spec requires. */
  done = false;
  /** Caching hints for this result (2026-07-28), when an entry sets its own. */
  cacheHint?: { ttlMs?: number; cacheScope?: 'public' | 'private' };
  /** What the client brought back for this round of a multi round-trip request (see inputResponses). */
  input?: { responses?: Record<string, unknown>; state?: unknown };
  /** The request's telemetry (a task's work: the task's span); undefined while telemetry is off. */
  trace?: RequestTrace | ChildSpan;
  private values?: Map<string | symbol, unknown>;

  constructor(
    /** Where the request runs: the engine, the framework logger, the way to ask the client. */
    readonly host: RequestHost,
    /** The client as this request sees it: era, version, identity, capabilities, log level, principal. */
    readonly env: RequestEnv,
    readonly requestId: RequestId,
    readonly method: string,
    /** The request's `_meta`, as sent. */
    readonly meta: Meta | undefined,
    private readonly abort: LazyAbort,
    readonly channel: MessageChannel,
    /** Set when the handler runs as a task. */
    readonly task?: TaskHandle,
  ) {}

  /** Per-request values: what middleware left for the handler (and for each other), by key. */
  get state(): Map<string | symbol, unknown> {
    return (this.values ??= new Map());
  }

  /** Gives the context a task's work runs with what middleware left on the request that started it. */
  adoptState(from: RequestContext): void {
    if (from.values) this.values = new Map(from.values);
  }

  /** Aborted when the client cancels the request, the session ends, or (for a task) the task is cancelled. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Whether the request was aborted (cheaper than signal.aborted: no signal is made just to ask). */
  get aborted(): boolean {
    return this.abort.aborted;
  }

  get engine(): ServerServices {
    return this.host.engine;
  }

  /** The legacy session this request came on; undefined in the modern era (2026-07-28), which has no sessions. */
  get session(): SessionView | undefined {
    return this.host.session;
  }

  /** The session's id (legacy era); undefined in the modern era. */
  get sessionId(): string | undefined {
    return this.host.session?.id;
  }

  /** Who is calling: subject, client id, scopes and claims (undefined when the server runs without auth). */
  get principal(): Principal | undefined {
    return this.env.principal;
  }

  get protocolVersion(): string {
    return this.env.protocolVersion;
  }

  get clientInfo(): Implementation | undefined {
    return this.env.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.env.clientCapabilities;
  }

  /**
   * The client's answers to the input requests of the previous round, by key (the lower-level form
   * of multi round-trip requests: see InputRequired). Undefined on a first round.
   */
  get inputResponses(): Record<string, unknown> | undefined {
    return this.input?.responses;
  }

  /** The `state` the handler gave InputRequired in the previous round, verified and opened; undefined on a first round. */
  get requestState(): unknown {
    return this.input?.state;
  }

  /** The progress token the client sent, if any: progress is only reported when there is one. */
  get progressToken(): string | number | undefined {
    const token = this.meta?.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  /**
   * The request's OpenTelemetry span (a task's work: the task's span); a non-recording span while
   * tracing is off. Add attributes and events to it; start your own spans under `traceContext`.
   */
  get span(): Span {
    if (this.trace?.span) return this.trace.span;
    const { trace, INVALID_SPAN_CONTEXT } = otelApi();
    return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  }

  /**
   * The trace context the handler runs in: pass it as the parent of spans you start
   * (`tracer.startActiveSpan(name, {}, ctx.traceContext, fn)`). With a context manager registered
   * (the Node SDK registers one) the handler already runs in it, so `startActiveSpan(name, fn)` nests too.
   */
  get traceContext(): Context {
    return this.trace?.context ?? otelApi().context.active();
  }

  /** Logs to pino (with session and request ids, and the trace's ids) and, at or above the session's level, to the client. */
  get log(): McpLogger {
    if (this.logger) return this.logger;
    const spanContext = this.trace?.span?.spanContext();
    const bindings: Record<string, unknown> = this.task ? { requestId: this.requestId, taskId: this.task.id } : { requestId: this.requestId };
    if (spanContext && spanContext.traceId !== otelApi().INVALID_SPAN_CONTEXT.traceId) {
      bindings.trace_id = spanContext.traceId;
      bindings.span_id = spanContext.spanId;
    }
    const host = this.host;
    const pino = new LoggerOnDemand(host.loggerLevels ?? host.logger, () => (host.loggerWith ? host.loggerWith(bindings) : extendLogger(host.logger, bindings)));
    return (this.logger = new McpLogger(pino, this.env, this.channel, undefined, this.task ? relatedTask(this.task.id) : undefined));
  }

  /**
   * Reports progress on this request. Sent only when the request carried a progressToken;
   * values must increase, so a repeated or smaller value is dropped.
   */
  progress(progress: number, total?: number, message?: string): void {
    const progressToken = this.progressToken;
    if (progressToken === undefined || this.done || this.abort.aborted) return;
    if (!(progress > this.lastProgress)) {
      this.host.logger.debug({ requestId: this.requestId, progress, last: this.lastProgress }, 'progress must increase; dropped');
      return;
    }
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    if (this.task) params._meta = relatedTask(this.task.id);
    this.channel.send({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  /**
   * Closes the connection carrying this request's stream, keeping the stream (HTTP SSE polling):
   * the client comes back with Last-Event-ID and gets what was sent meanwhile, then the result.
   * Returns false where the transport cannot do that (stdio, JSON responses).
   */
  closeStream(retryMs?: number): boolean {
    if (!this.channel.closeConnection) return false;
    this.channel.closeConnection(retryMs);
    return true;
  }

  /** Asks the client's model for a completion (sampling/createMessage). Needs the client's sampling capability. */
  sample(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult> {
    return sample(this, params, options);
  }

  /**
   * Asks the user to fill a form (elicitation, form mode). Give a class (its class-validator rules
   * become the restricted schema, and the answer comes back as a validated instance) or a raw schema.
   */
  elicit<T extends object>(message: string, schema: (new () => T) | JsonSchema, options?: ClientRequestOptions): Promise<ElicitResult<T>> {
    return elicit(this, message, schema, options);
  }

  /** Sends the user to a URL (elicitation, URL mode); completion is announced later with completeElicitation(). */
  elicitUrl(request: { message: string; url: string; elicitationId?: string }, options?: ClientRequestOptions) {
    return elicitUrl(this, request, options);
  }

  /**
   * Tells the client a URL-mode elicitation finished out of band (notifications/elicitation/complete).
   * Legacy era only: 2026-07-28 removed the notification (the client learns the outcome by retrying).
   */
  completeElicitation(elicitationId: string): void {
    this.host.session?.notify('notifications/elicitation/complete', { elicitationId });
  }

  /** The client's roots (roots/list). Needs the client's roots capability. */
  roots(options?: ClientRequestOptions): Promise<Root[]> {
    return listRoots(this, options);
  }

  /** Tells subscribers of `uri` (in every session) that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.host.engine.notifyResourceUpdated(uri);
  }
}

/** The `_meta` that ties a message to the task it belongs to. */
export function relatedTask(taskId: string): Record<string, unknown> {
  return { 'io.modelcontextprotocol/related-task': { taskId } };
}
