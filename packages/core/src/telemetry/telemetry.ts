import type { Attributes, Context, Counter, Histogram, Meter, MeterProvider, ProxyTracerProvider, Span, TextMapPropagator, Tracer, TracerProvider } from '@opentelemetry/api';
import { ErrorCode, McpError } from '../protocol/errors';
import type { JsonRpcResponse, RequestId } from '../protocol/jsonrpc';
import * as sem from './semconv';
import type { RequestOrigin } from './origin';
import { cutName as cut, subjectOf } from '../protocol/subject';
import { injectInto, parentOf } from './trace-context';
import { otelApi, otelInUse } from './otel-api';

/** The tracer and meter providers (and propagator) telemetry uses instead of the global ones (listen's `otel` and `metrics`, tests). */
export interface TelemetryProviders {
  tracerProvider?: TracerProvider;
  meterProvider?: MeterProvider;
  /**
   * Reads and writes trace context in `_meta` and the HTTP headers. Default: the global
   * propagator, which is a no-op until one is registered (NodeSDK registers W3C trace context and
   * baggage): a tracer provider given here without one would otherwise ignore the client's context.
   */
  propagator?: TextMapPropagator;
}

/** What telemetry asks of the server it serves: which names are its own (only those go into span names and metric attributes), and the gauges it reads. */
export interface TelemetrySource {
  isKnownMethod(method: string): boolean;
  isKnownTool(name: string): boolean;
  isKnownPrompt(name: string): boolean;
  /** Tasks held, by status (undefined where the store cannot count them cheaply). */
  taskCounts(): Record<string, number> | undefined;
}

/** The version of @mcpx/core, the instrumentation scope's version. */
const SCOPE_VERSION = '0.1.0';
/** The global tracer provider's delegate until an SDK registers one, and the no-op meter: read once the API is loaded. */
let noops: { tracerProvider: TracerProvider; meter: Meter } | undefined;
function apiNoops(): { tracerProvider: TracerProvider; meter: Meter } {
  if (noops) return noops;
  const api = otelApi();
  return (noops = { tracerProvider: new api.ProxyTracerProvider().getDelegate(), meter: api.createNoopMeter() });
}

interface Instruments {
  operationDuration: Histogram;
  sessionDuration: Histogram;
  refusals: Counter;
}

/** Who a request came on and where it came from: what its span and metric record besides the message itself. */
export interface TraceScope {
  /** The session's id as logs show it (sessionLogId); none in stateless HTTP, over stdio, or in the 2026-07-28 era. */
  sessionId?: string;
  origin?: RequestOrigin;
}

/**
 * The server's OpenTelemetry instrumentation, through @opentelemetry/api only: one SERVER span and
 * one `mcp.server.operation.duration` point per message from the client, CLIENT spans for what the
 * server asks the client, a span for each task's background work, and the gauges and counters an
 * operator reads. With no SDK registered (and no providers given) every entry point returns at once:
 * nothing is built per request.
 */
export class Telemetry {
  /** Live counts the gauges read; transports move the stream count, sessions and requests move theirs. */
  sessionsActive = 0;
  streamsActive = 0;
  requestsActive = 0;
  private readonly eventStores = new Set<() => number>();
  private providers: TelemetryProviders = {};
  private cachedTracer?: Tracer;
  private idleProxy?: ProxyTracerProvider;
  private meterFrom?: MeterProvider;
  private built?: Instruments;

  constructor(private readonly source: TelemetrySource) {
    // The gauges exist from the start where a meter provider is registered already, not from the first request.
    this.instruments();
  }

  /** Uses these providers instead of the global ones from now on. */
  use(providers: TelemetryProviders): void {
    this.providers = { ...this.providers, ...providers };
    this.cachedTracer = this.idleProxy = undefined;
    this.meterFrom = undefined;
    this.instruments();
  }

  /** The tracer; undefined while no tracer provider is registered (a span would record nothing). */
  tracer(): Tracer | undefined {
    if (this.cachedTracer) return this.cachedTracer;
    const given = this.providers.tracerProvider;
    // Nothing registered with the API (it is not even loaded): nothing to trace with.
    if (!given && !otelInUse()) return undefined;
    // No SDK registered: the API's proxy answers, and registering one gives it a delegate. Kept here,
    // each request asks the proxy alone rather than looking the global up again.
    const { tracerProvider: noopProvider } = apiNoops();
    if (this.idleProxy?.getDelegate() === noopProvider) return undefined;
    const api = otelApi();
    const provider = given ?? api.trace.getTracerProvider();
    if (provider instanceof api.ProxyTracerProvider && provider.getDelegate() === noopProvider) {
      this.idleProxy = provider;
      return undefined;
    }
    this.idleProxy = undefined;
    return (this.cachedTracer = provider.getTracer(sem.INSTRUMENTATION_SCOPE, SCOPE_VERSION));
  }

  /** The instruments; undefined while no meter provider is registered. */
  private instruments(): Instruments | undefined {
    const given = this.providers.meterProvider;
    if (!given && !otelInUse()) return undefined;
    const provider = given ?? otelApi().metrics.getMeterProvider();
    if (provider !== this.meterFrom) {
      this.meterFrom = provider;
      const meter = provider.getMeter(sem.INSTRUMENTATION_SCOPE, SCOPE_VERSION);
      this.built = meter === apiNoops().meter ? undefined : this.build(meter);
    }
    return this.built;
  }

  private build(meter: Meter): Instruments {
    const INT = otelApi().ValueType.INT;
    const seconds = { unit: 's', advice: { explicitBucketBoundaries: sem.DURATION_BUCKETS } };
    const instruments: Instruments = {
      operationDuration: meter.createHistogram(sem.METRIC_OPERATION_DURATION, {
        ...seconds,
        description: 'The duration of the MCP request or notification as observed on the receiver from the time it was received until the result or ack is sent.',
      }),
      sessionDuration: meter.createHistogram(sem.METRIC_SESSION_DURATION, { ...seconds, description: 'The duration of the MCP session as observed on the MCP server.' }),
      refusals: meter.createCounter(sem.METRIC_REFUSALS, {
        unit: '{refusal}',
        description: 'Messages and HTTP requests refused: by auth (401/403), by a limit, or with another 4xx status.',
        valueType: INT,
      }),
    };
    const gauge = (name: string, unit: string, description: string, read: () => number) =>
      meter.createObservableGauge(name, { unit, description, valueType: INT }).addCallback((result) => result.observe(read()));
    gauge(sem.METRIC_SESSIONS_ACTIVE, '{session}', 'Sessions this instance holds (2025-11-25 era).', () => this.sessionsActive);
    gauge(sem.METRIC_STREAMS_ACTIVE, '{stream}', 'SSE streams open on this instance.', () => this.streamsActive);
    gauge(sem.METRIC_REQUESTS_ACTIVE, '{request}', 'Requests being handled on this instance.', () => this.requestsActive);
    gauge(sem.METRIC_EVENT_STORE_SIZE, 'By', 'Bytes of SSE events held for resumption on this instance.', () => {
      let bytes = 0;
      for (const read of this.eventStores) bytes += read();
      return bytes;
    });
    meter.createObservableGauge(sem.METRIC_TASKS, { unit: '{task}', description: 'Tasks held, by status.', valueType: INT }).addCallback((result) => {
      const counts = this.source.taskCounts();
      for (const status in counts) result.observe(counts[status]!, { [sem.ATTR_MCPX_TASK_STATUS]: status });
    });
    return instruments;
  }

  /** Adds an event store whose size `mcpx.event_store.size` reports; returns the way to remove it. */
  observeEventStore(bytes: () => number): () => void {
    this.eventStores.add(bytes);
    return () => this.eventStores.delete(bytes);
  }

  /**
   * Counts a refusal: `auth` (401/403), `limit` (a cap or budget; `limit` names it), or `http` (any
   * other 4xx, by status).
   */
  refused(reason: 'auth' | 'limit' | 'http', detail: { status?: number; limit?: string } = {}): void {
    const instruments = this.instruments();
    if (!instruments) return;
    const attributes: Attributes = { [sem.ATTR_MCPX_REFUSAL_REASON]: reason };
    if (detail.status !== undefined) attributes[sem.ATTR_HTTP_RESPONSE_STATUS_CODE] = detail.status;
    if (detail.limit !== undefined) attributes[sem.ATTR_MCPX_LIMIT] = detail.limit;
    instruments.refusals.add(1, attributes);
  }

  /** A session opened (2025-11-25 era); sessionEnded ends it. */
  sessionOpened(): void {
    this.sessionsActive++;
  }

  /**
   * A session ended here: `closed` (ended for good: its duration is recorded) or released (it
   * lives on on another instance). One never initialized (`protocolVersion` empty: a stdio stream
   * only 2026-07-28 requests used) was no MCP session: no duration.
   */
  sessionEnded(closed: boolean, openedAt: number, protocolVersion: string, origin: RequestOrigin | undefined): void {
    // openedAt: ms since the epoch (a shared session may have opened on another instance).
    this.sessionsActive--;
    if (!closed || !protocolVersion) return;
    const instruments = this.instruments();
    if (!instruments) return;
    const attributes = networkAttributes(origin);
    attributes[sem.ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
    instruments.sessionDuration.record(Math.max(0, Date.now() - openedAt) / 1000, attributes);
  }

  /**
   * Starts the telemetry of one request (or, with `id` undefined, notification) from the client;
   * undefined when there is neither a tracer nor a meter to record it with.
   */
  startRequest(method: string, id: RequestId | undefined, params: Record<string, unknown> | undefined, scope: TraceScope): RequestTrace | undefined {
    const tracer = this.tracer();
    const instruments = this.instruments();
    if (!tracer && !instruments) return undefined;
    return new RequestTrace(this, tracer, instruments, method, id, params, scope);
  }

  /** @internal The propagator given with use(), if any (else the global one). */
  propagator(): TextMapPropagator | undefined {
    return this.providers.propagator;
  }

  /** A CLIENT span for a request the server sends the client (sampling, elicitation, roots), with its trace context written into `meta`. */
  startClientRequest(method: string, parent: Context, meta: Record<string, unknown>, sessionId: string | undefined): ChildSpan | undefined {
    const tracer = this.tracer();
    if (!tracer) return undefined;
    const attributes: Attributes = { [sem.ATTR_MCP_METHOD_NAME]: method };
    if (sessionId) attributes[sem.ATTR_MCP_SESSION_ID] = sessionId;
    const api = otelApi();
    const span = tracer.startSpan(method, { kind: api.SpanKind.CLIENT, attributes }, parent);
    const ctx = api.trace.setSpan(parent, span);
    injectInto(meta, ctx, this.providers.propagator);
    return new ChildSpan(span, ctx);
  }

  /** The span of a task's background work (`execute_tool <tool>`), a child of the call that created the task. */
  startTask(tool: string, taskId: string, parent: Context): ChildSpan | undefined {
    const tracer = this.tracer();
    if (!tracer) return undefined;
    const known = this.source.isKnownTool(tool);
    const api = otelApi();
    const span = tracer.startSpan(
      known ? `${sem.EXECUTE_TOOL} ${tool}` : sem.EXECUTE_TOOL,
      { kind: api.SpanKind.INTERNAL, attributes: { [sem.ATTR_GEN_AI_OPERATION_NAME]: sem.EXECUTE_TOOL, [sem.ATTR_GEN_AI_TOOL_NAME]: cut(tool), [sem.ATTR_MCPX_TASK_ID]: taskId } },
      parent,
    );
    return new ChildSpan(span, api.trace.setSpan(parent, span));
  }

  /** @internal */
  known(method: string, tool: string | undefined, prompt: string | undefined): { method: string; tool?: string; prompt?: string } {
    const source = this.source;
    return {
      method: source.isKnownMethod(method) ? method : sem.OTHER,
      tool: tool !== undefined && source.isKnownTool(tool) ? tool : undefined,
      prompt: prompt !== undefined && source.isKnownPrompt(prompt) ? prompt : undefined,
    };
  }
}

/** The span (and trace context) of one request from the client, and its point of `mcp.server.operation.duration`. */
export class RequestTrace {
  /** The request's span; undefined when only metrics are on. */
  readonly span: Span | undefined;
  /** The context the handler runs in: the span's, so spans the handler starts are its children. */
  readonly context: Context;
  private readonly startedAt = performance.now();
  private readonly names: { method: string; tool?: string; prompt?: string };

  constructor(
    private readonly telemetry: Telemetry,
    tracer: Tracer | undefined,
    private readonly instruments: Instruments | undefined,
    private readonly method: string,
    id: RequestId | undefined,
    params: Record<string, unknown> | undefined,
    private readonly scope: TraceScope,
  ) {
    telemetry.requestsActive++;
    const subject = subjectOf(method, params);
    this.names = telemetry.known(method, subject.tool, subject.prompt);
    const api = otelApi();
    if (!tracer) {
      this.context = api.context.active();
      return;
    }
    const { method: name, tool, prompt } = this.names;
    const target = tool ?? prompt;
    const attributes = networkAttributes(scope.origin);
    attributes[sem.ATTR_MCP_METHOD_NAME] = cut(method);
    if (id !== undefined) attributes[sem.ATTR_JSONRPC_REQUEST_ID] = String(id);
    if (scope.sessionId) attributes[sem.ATTR_MCP_SESSION_ID] = scope.sessionId;
    const origin = scope.origin;
    if (origin?.clientAddress) {
      attributes[sem.ATTR_CLIENT_ADDRESS] = origin.clientAddress;
      if (origin.clientPort !== undefined) attributes[sem.ATTR_CLIENT_PORT] = origin.clientPort;
    }
    if (subject.tool !== undefined) {
      attributes[sem.ATTR_GEN_AI_TOOL_NAME] = subject.tool;
      attributes[sem.ATTR_GEN_AI_OPERATION_NAME] = sem.EXECUTE_TOOL;
    }
    if (subject.prompt !== undefined) attributes[sem.ATTR_GEN_AI_PROMPT_NAME] = subject.prompt;
    if (subject.uri !== undefined) attributes[sem.ATTR_MCP_RESOURCE_URI] = subject.uri;
    if (subject.taskId !== undefined) attributes[sem.ATTR_MCPX_TASK_ID] = subject.taskId;
    const parent = parentOf(params?._meta as Record<string, unknown> | undefined, origin, telemetry.propagator());
    this.span = tracer.startSpan(target ? `${name} ${target}` : name, { kind: api.SpanKind.SERVER, attributes, links: parent.links }, parent.context);
    this.context = api.trace.setSpan(parent.context, this.span);
  }

  /** Runs `fn` in the request's trace context. */
  run<T>(fn: () => T): T {
    return this.span ? otelApi().context.with(this.context, fn) : fn();
  }

  /** The ids a log line of this request carries (`trace_id`, `span_id`); undefined when it has no valid span. */
  logFields(): { trace_id: string; span_id: string } | undefined {
    const spanContext = this.span?.spanContext();
    return spanContext && otelApi().isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : undefined;
  }

  /** Records an exception the handler threw that the client only sees as -32603. */
  exception(err: unknown): void {
    if (this.span && !(err instanceof McpError) && err instanceof Error) this.span.recordException(err);
  }

  /** Ends the span and records the duration: `response` null when the request was cancelled, undefined for a notification. */
  end(response: JsonRpcResponse | null | undefined, protocolVersion: string | undefined): void {
    this.telemetry.requestsActive--;
    let errorType: string | undefined;
    let code: number | undefined;
    let message: string | undefined;
    if (response === null) {
      errorType = sem.CANCELLED;
      message = 'The client cancelled the request';
    } else if (response && 'error' in response) {
      code = response.error.code;
      errorType = String(code);
      message = response.error.message;
      const limit = (response.error.data as { limit?: unknown } | undefined)?.limit;
      if (code === ErrorCode.LimitExceeded) this.telemetry.refused('limit', typeof limit === 'string' ? { limit } : {});
    } else if (response && this.method === 'tools/call' && response.result.isError === true) {
      errorType = sem.TOOL_ERROR;
      message = 'The tool reported an error (isError)';
    }
    const span = this.span;
    if (span) {
      if (protocolVersion) span.setAttribute(sem.ATTR_MCP_PROTOCOL_VERSION, protocolVersion);
      if (errorType !== undefined) {
        span.setAttribute(sem.ATTR_ERROR_TYPE, errorType);
        if (code !== undefined) span.setAttribute(sem.ATTR_RPC_RESPONSE_STATUS_CODE, String(code));
        span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message });
      }
      span.end();
    }
    const instruments = this.instruments;
    if (!instruments) return;
    const { method, tool, prompt } = this.names;
    const attributes = networkAttributes(this.scope.origin);
    attributes[sem.ATTR_MCP_METHOD_NAME] = method;
    if (tool) {
      attributes[sem.ATTR_GEN_AI_TOOL_NAME] = tool;
      attributes[sem.ATTR_GEN_AI_OPERATION_NAME] = sem.EXECUTE_TOOL;
    }
    if (prompt) attributes[sem.ATTR_GEN_AI_PROMPT_NAME] = prompt;
    if (protocolVersion) attributes[sem.ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
    if (errorType !== undefined) {
      attributes[sem.ATTR_ERROR_TYPE] = errorType;
      if (code !== undefined) attributes[sem.ATTR_RPC_RESPONSE_STATUS_CODE] = String(code);
    }
    instruments.operationDuration.record((performance.now() - this.startedAt) / 1000, attributes);
  }
}

/** A span the server starts inside a request: a question to the client, or a task's work. */
export class ChildSpan {
  constructor(
    readonly span: Span,
    readonly context: Context,
  ) {}

  run<T>(fn: () => T): T {
    return otelApi().context.with(this.context, fn);
  }

  /** Ends it; `errorType` (and the message) when it failed. */
  end(errorType?: string, message?: string, attributes?: Attributes): void {
    if (attributes) this.span.setAttributes(attributes);
    if (errorType !== undefined) {
      this.span.setAttribute(sem.ATTR_ERROR_TYPE, errorType);
      this.span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message });
    }
    this.span.end();
  }
}

/** `network.*` of the conventions' "Recording MCP transport" table. */
function networkAttributes(origin: RequestOrigin | undefined): Attributes {
  if (!origin) return {};
  const attributes: Attributes = { [sem.ATTR_NETWORK_TRANSPORT]: origin.transport };
  if (origin.httpVersion) {
    attributes[sem.ATTR_NETWORK_PROTOCOL_NAME] = 'http';
    attributes[sem.ATTR_NETWORK_PROTOCOL_VERSION] = origin.httpVersion;
  }
  return attributes;
}
