/**
 * Traces and metrics over Streamable HTTP, read from the OpenTelemetry SDK's in-memory exporter
 * and an on-demand metric reader: a listening server (port 0) driven by the official clients
 * (1.x for 2025-11-25, 2.x for 2026-07-28). Exact span names, kinds, attributes and parents; the
 * trace context a client sends in `_meta` and in the HTTP headers; spans the tools start; the
 * trace ids on log lines; the metric points and gauges. The providers reach the engine through
 * `engine.telemetry.use()`; only the context manager is global (for `startActiveSpan` with no parent).
 */
import { context, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { memoryLogger } from '@mcpx/testing';
import { createEngine } from '@mcpx/core';
import { semconv } from '@mcpx/core/telemetry';
import type { McpEngine } from '@mcpx/core/transport';
import { listen, type McpHttpServer } from '@mcpx/http';
import { NOTE_URI, Traced } from '../../core/test/telemetry-fixture';
import { SpanKind, histogramPoints, isChildOf, nanos, newTraceparent, otelKit, parentIdOf, valueOf, waitUntil } from '../../core/test/telemetry-kit';

const kit = otelKit();
const { logger, lines } = memoryLogger('info');
const fixture = new Traced();
fixture.tracer = kit.tracerProvider.getTracer('app');
const contextManager = new AsyncLocalStorageContextManager();

let engine: McpEngine;
let server: McpHttpServer;
let client: Client;
let transport: StreamableHTTPClientTransport;
/** Headers the next requests carry besides the SDK's own (a traceparent header). */
let extraHeaders: Record<string, string> = {};
/** Elicitation requests the client received. */
const elicitations: ElicitRequest[] = [];
/** The JSON-RPC ids the elicitation requests came under. */
const elicitationIds: (string | number)[] = [];

/** SDK 1.x resumes a POST stream that ended with an error on timers close() does not clear: no reconnection in tests. */
const NO_RECONNECT = { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 };

const withHeaders: FetchLike = (url, init) => {
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
  return fetch(url, { ...init, headers });
};

async function connectClient(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch: withHeaders, reconnectionOptions: NO_RECONNECT });
  const client = new Client({ name: 'telemetry-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.onerror = () => {};
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    elicitations.push(request);
    elicitationIds.push(extra.requestId);
    return { action: 'accept', content: { confirm: true } };
  });
  await client.connect(transport);
  return { client, transport };
}

const attrs = (span: ReadableSpan) => span.attributes;
const sessionLogId = () => transport.sessionId!.slice(0, 8);

/** What every span of a request over HTTP/1.1 from this machine carries. */
function networkOf(span: ReadableSpan) {
  return {
    'network.transport': span.attributes['network.transport'],
    'network.protocol.name': span.attributes['network.protocol.name'],
    'network.protocol.version': span.attributes['network.protocol.version'],
  };
}
const HTTP_NETWORK = { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' };

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  engine = createEngine(fixture, { logger, tasks: { pollIntervalMs: 10 } });
  engine.telemetry.use(kit.providers);
  server = await listen(engine, { host: '127.0.0.1', port: 0, handleSignals: false, logger });
  ({ client, transport } = await connectClient());
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await kit.shutdown();
  context.disable();
});

beforeEach(() => {
  kit.reset();
  extraHeaders = {};
  lines.length = 0;
  elicitations.length = 0;
  elicitationIds.length = 0;
});

describe('spans of requests over Streamable HTTP', () => {
  it('a tool call is one SERVER span "tools/call <tool>" with the attributes of the conventions', async () => {
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.instrumentationScope.name).toBe('@mcpx/core');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(parentIdOf(span)).toBeUndefined();
    expect(attrs(span)).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
      'mcp.session.id': sessionLogId(),
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      ...HTTP_NETWORK,
      'client.address': expect.stringMatching(/127\.0\.0\.1$/),
      'client.port': expect.any(Number),
    });
  });

  it('a tool result with isError sets error.type tool_error and the ERROR status', async () => {
    const result = await client.callTool({ name: 'refuse', arguments: {} });
    expect(result.isError).toBe(true);
    const span = await kit.waitForSpan('tools/call refuse');
    expect(attrs(span)).toMatchObject({ 'error.type': 'tool_error', 'gen_ai.tool.name': 'refuse' });
    expect(attrs(span)).not.toHaveProperty('rpc.response.status_code');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'The tool reported an error (isError)' });
  });

  it('a thrown McpError sets error.type and rpc.response.status_code to its code', async () => {
    await expect(client.callTool({ name: 'strict', arguments: {} })).rejects.toThrow(/strict says no/);
    const span = await kit.waitForSpan('tools/call strict');
    expect(attrs(span)).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'strict says no' });
    expect(span.events).toEqual([]);
  });

  it('an exception a tool throws is a tool_error result, with the exception recorded on the span', async () => {
    const result = await client.callTool({ name: 'crash', arguments: {} });
    expect(result).toEqual({ content: [{ type: 'text', text: 'boom' }], isError: true });
    const span = await kit.waitForSpan('tools/call crash');
    expect(attrs(span)).toMatchObject({ 'error.type': 'tool_error' });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.events.map((e) => [e.name, e.attributes?.['exception.message']])).toEqual([['exception', 'boom']]);
  });

  it('a tool the server does not have keeps its name out of the span name', async () => {
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow();
    const span = await kit.waitForSpan('tools/call');
    expect(attrs(span)).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'no_such_tool', 'error.type': expect.stringMatching(/^-326\d\d$/) });
  });

  it('a resource read is "resources/read" with mcp.resource.uri', async () => {
    const result = await client.readResource({ uri: NOTE_URI });
    expect(result.contents[0]).toMatchObject({ uri: NOTE_URI, text: 'buy milk' });
    const span = await kit.waitForSpan('resources/read');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(attrs(span)).toMatchObject({ 'mcp.method.name': 'resources/read', 'mcp.resource.uri': NOTE_URI, 'mcp.session.id': sessionLogId(), ...HTTP_NETWORK });
    expect(attrs(span)).not.toHaveProperty('error.type');
  });

  it('a prompt is "prompts/get <prompt>" with gen_ai.prompt.name', async () => {
    const result = await client.getPrompt({ name: 'summarize', arguments: { topic: 'otel' } });
    expect(result.messages[0]!.content).toEqual({ type: 'text', text: 'Summarise otel' });
    const span = await kit.waitForSpan('prompts/get summarize');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(attrs(span)).toMatchObject({ 'mcp.method.name': 'prompts/get', 'gen_ai.prompt.name': 'summarize', 'mcp.protocol.version': '2025-11-25' });
  });

  it('an elicitation is a CLIENT span under the tool call, and its traceparent reaches the client', async () => {
    const result = await client.callTool({ name: 'confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'action=accept' }]);
    const call = await kit.waitForSpan('tools/call confirm');
    const ask = kit.span('elicitation/create');
    expect(ask.kind).toBe(SpanKind.CLIENT);
    expect(isChildOf(ask, call)).toBe(true);
    expect(attrs(ask)).toEqual({ 'mcp.method.name': 'elicitation/create', 'mcp.session.id': sessionLogId(), 'jsonrpc.request.id': String(elicitationIds[0]) });
    expect(ask.status.code).toBe(SpanStatusCode.UNSET);
    // The question ended before the call it was part of.
    expect(nanos(ask.endTime) <= nanos(call.endTime)).toBe(true);
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]!.params._meta).toMatchObject({ traceparent: `00-${ask.spanContext().traceId}-${ask.spanContext().spanId}-01` });
  });

  it('a task-augmented call: its work is an INTERNAL "execute_tool <tool>" span under the call, ending after it', async () => {
    const created = await client.request({ method: 'tools/call', params: { name: 'wait', arguments: { gate: 'task-1' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    const call = await kit.waitForSpan('tools/call wait');
    expect(attrs(call)).toMatchObject({ 'gen_ai.tool.name': 'wait' });
    await waitUntil(() => fixture.waiting.has('task-1'), 'the task to wait at its gate');
    expect(kit.spans().map((s) => s.name)).not.toContain('execute_tool wait');
    fixture.open('task-1');
    const work = await kit.waitForSpan('execute_tool wait');
    expect(work.kind).toBe(SpanKind.INTERNAL);
    expect(isChildOf(work, call)).toBe(true);
    expect(nanos(work.endTime) > nanos(call.endTime)).toBe(true);
    expect(attrs(work)).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'wait',
      'mcpx.task.id': taskId,
      'mcpx.task.status': 'completed',
    });
    expect(work.status.code).toBe(SpanStatusCode.UNSET);
    // tasks/* requests name the task they are about.
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'passed task-1' }]);
    const fetched = await kit.waitForSpan('tasks/result');
    expect(attrs(fetched)).toMatchObject({ 'mcp.method.name': 'tasks/result', 'mcpx.task.id': taskId });
  });
});

describe('trace context from the client', () => {
  it('a traceparent in _meta is the parent of the request span', async () => {
    const parent = newTraceparent();
    await client.callTool({ name: 'greet', arguments: { name: 'Bo' }, _meta: { traceparent: parent.traceparent } });
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.spanContext().traceId).toBe(parent.traceId);
    expect(parentIdOf(span)).toBe(parent.spanId);
    expect(span.links).toEqual([]);
  });

  it('the HTTP traceparent header is the parent when _meta carries none', async () => {
    const header = newTraceparent();
    extraHeaders = { traceparent: header.traceparent };
    await client.callTool({ name: 'greet', arguments: { name: 'Cy' } });
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.spanContext().traceId).toBe(header.traceId);
    expect(parentIdOf(span)).toBe(header.spanId);
  });

  it('with both, _meta is the parent and the header context a link', async () => {
    const header = newTraceparent();
    const meta = newTraceparent();
    extraHeaders = { traceparent: header.traceparent };
    await client.callTool({ name: 'greet', arguments: { name: 'Di' }, _meta: { traceparent: meta.traceparent } });
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.spanContext().traceId).toBe(meta.traceId);
    expect(parentIdOf(span)).toBe(meta.spanId);
    expect(span.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[header.traceId, header.spanId]]);
  });

  it('a malformed traceparent in _meta is ignored: the span starts a trace of its own', async () => {
    await client.callTool({ name: 'greet', arguments: { name: 'Ed' }, _meta: { traceparent: '00-not-a-trace-01' } });
    const span = await kit.waitForSpan('tools/call greet');
    expect(parentIdOf(span)).toBeUndefined();
    expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("the tools' own spans and logs", () => {
  it('a span started under ctx.traceContext, and an attribute set on ctx.span, land in the request span', async () => {
    await client.callTool({ name: 'nested', arguments: {} });
    const call = await kit.waitForSpan('tools/call nested');
    const own = kit.span('app.explicit');
    expect(isChildOf(own, call)).toBe(true);
    expect(attrs(call)['app.note']).toBe('set by the tool');
  });

  it('startActiveSpan with no parent nests under the request span (the context manager carries it)', async () => {
    await client.callTool({ name: 'ambient', arguments: {} });
    const call = await kit.waitForSpan('tools/call ambient');
    expect(isChildOf(kit.span('app.ambient'), call)).toBe(true);
  });

  it('ctx.log lines and the "mcp request" line carry trace_id and span_id', async () => {
    await client.callTool({ name: 'greet', arguments: { name: 'Flo' } });
    const span = await kit.waitForSpan('tools/call greet');
    const ids = { trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId };
    await waitUntil(() => lines.some((l) => l.msg === 'mcp request' && l.tool === 'greet'), 'the request line');
    expect(lines.find((l) => l.msg === 'greeting')).toMatchObject({ data: { who: 'Flo' }, ...ids });
    expect(lines.find((l) => l.msg === 'mcp request' && l.tool === 'greet')).toMatchObject({ mcpMethod: 'tools/call', ...ids });
  });
});

describe('metrics over Streamable HTTP', () => {
  it('mcp.server.operation.duration: a point per method and tool, with the attributes of the conventions and their buckets', async () => {
    await client.callTool({ name: 'greet', arguments: { name: 'Gus' } });
    await client.callTool({ name: 'refuse', arguments: {} });
    await expect(client.callTool({ name: 'strict', arguments: {} })).rejects.toThrow();
    await kit.waitForSpan('tools/call strict');
    const points = await kit.points('mcp.server.operation.duration');
    const ok = histogramPoints(points, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'greet' });
    expect(ok).toHaveLength(1);
    expect(ok[0]!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      ...HTTP_NETWORK,
    });
    expect(ok[0]!.value.count).toBeGreaterThanOrEqual(1);
    expect(ok[0]!.value.buckets.boundaries).toEqual(semconv.DURATION_BUCKETS);
    expect(histogramPoints(points, { 'gen_ai.tool.name': 'refuse' })[0]!.attributes).toMatchObject({ 'error.type': 'tool_error' });
    expect(histogramPoints(points, { 'gen_ai.tool.name': 'strict' })[0]!.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    // Notifications are operations too.
    expect(histogramPoints(points, { 'mcp.method.name': 'notifications/initialized' })).toHaveLength(1);
    const descriptor = (await kit.collect()).get('mcp.server.operation.duration')!.descriptor;
    expect(descriptor.unit).toBe('s');
  });

  it('gauges: open sessions, requests in flight, tasks by status', async () => {
    expect(valueOf(await kit.points('mcpx.session.active'))).toBe(1);
    const held = client.callTool({ name: 'wait', arguments: { gate: 'in-flight' } });
    await waitUntil(() => fixture.waiting.has('in-flight'), 'the call to wait at its gate');
    expect(valueOf(await kit.points('mcpx.request.active'))).toBe(1);
    fixture.open('in-flight');
    await held;
    await kit.waitForSpan('tools/call wait');
    expect(valueOf(await kit.points('mcpx.request.active'))).toBe(0);
    // The task of the earlier test is held, completed.
    expect(valueOf(await kit.points('mcpx.task.count'), { 'mcpx.task.status': 'completed' })).toBeGreaterThanOrEqual(1);
    // The client's GET stream is open; the events sent so far are held for resumption.
    // (A POST's stream may still be closing after its response arrived: wait for it.)
    await waitUntil(async () => valueOf(await kit.points('mcpx.sse.stream.active')) === 1, 'one SSE stream: the GET stream');
    expect(valueOf(await kit.points('mcpx.event_store.size'))).toBeGreaterThan(0);
  });

  it('a refusal by the HTTP layer is counted by reason and status', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    await response.body?.cancel();
    await waitUntil(async () => valueOf(await kit.points('mcpx.refusal.count'), { 'http.response.status_code': 404 }) === 1, 'the 404 to be counted');
    expect((await kit.points('mcpx.refusal.count')).find((p) => p.attributes['http.response.status_code'] === 404)!.attributes).toEqual({
      'mcpx.refusal.reason': 'http',
      'http.response.status_code': 404,
    });
  });

  it('a session: its initialize and initialized spans, then mcp.server.session.duration once a DELETE ends it', async () => {
    const before = histogramPoints(await kit.points('mcp.server.session.duration'), {});
    expect(before).toEqual([]);
    const second = await connectClient();
    const id = second.transport.sessionId!.slice(0, 8);
    const init = await kit.waitForSpan('initialize');
    expect(attrs(init)).toMatchObject({ 'mcp.method.name': 'initialize', 'mcp.session.id': id, 'mcp.protocol.version': '2025-11-25', ...HTTP_NETWORK });
    const initialized = await kit.waitForSpan('notifications/initialized');
    expect(initialized.kind).toBe(SpanKind.SERVER);
    expect(attrs(initialized)).toMatchObject({ 'mcp.method.name': 'notifications/initialized', 'mcp.session.id': id });
    expect(attrs(initialized)).not.toHaveProperty('jsonrpc.request.id');
    expect(valueOf(await kit.points('mcpx.session.active'))).toBe(2);
    await second.transport.terminateSession();
    await second.client.close();
    await waitUntil(async () => histogramPoints(await kit.points('mcp.server.session.duration'), {}).length > 0, 'the session duration');
    const [point] = histogramPoints(await kit.points('mcp.server.session.duration'), {});
    expect(point!.attributes).toEqual({ 'mcp.protocol.version': '2025-11-25', ...HTTP_NETWORK });
    expect(point!.value.count).toBe(1);
    expect(point!.value.buckets.boundaries).toEqual(semconv.DURATION_BUCKETS);
    expect(valueOf(await kit.points('mcpx.session.active'))).toBe(1);
  });
});

describe('a 2026-07-28 request over HTTP', () => {
  let modern: ModernClient;
  const modernAsked: Record<string, unknown>[] = [];

  beforeAll(async () => {
    modern = new ModernClient({ name: 'modern-telemetry', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
    modern.onerror = () => {};
    modern.setRequestHandler('elicitation/create', async (request) => {
      modernAsked.push(request.params as Record<string, unknown>);
      return { action: 'accept', content: { confirm: true } };
    });
    await modern.connect(new ModernTransport(new URL(server.url)), { timeout: 10_000 });
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });
  afterAll(async () => {
    await modern?.close();
  });

  it('is one SERVER span with the modern version, no session id, and the _meta traceparent as its parent', async () => {
    const parent = newTraceparent();
    const result = await modern.callTool({ name: 'greet', arguments: { name: 'Hal' }, _meta: { traceparent: parent.traceparent } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Hal' }]);
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(parent.traceId);
    expect(parentIdOf(span)).toBe(parent.spanId);
    expect(attrs(span)).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': expect.any(String),
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      ...HTTP_NETWORK,
      'client.address': expect.stringMatching(/127\.0\.0\.1$/),
      'client.port': expect.any(Number),
    });
    const points = histogramPoints(await kit.points('mcp.server.operation.duration'), { 'mcp.protocol.version': '2026-07-28', 'gen_ai.tool.name': 'greet' });
    expect(points).toHaveLength(1);
    expect(networkOf(span)).toEqual(HTTP_NETWORK);
  });

  it('ctx.log lines carry the HTTP request’s ids and the trace’s, from children of the server’s logger only (no child of a child)', async () => {
    // A child of a child resolves `child` to the root's own property too: the spy sees every level, and `this` tells the parent.
    const child = jest.spyOn(logger, 'child');
    try {
      await modern.callTool({ name: 'greet', arguments: { name: 'Ivy' } });
      const span = await kit.waitForSpan('tools/call greet');
      const ids = { trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId };
      await waitUntil(() => lines.some((l) => l.msg === 'mcp request' && l.tool === 'greet'), 'the request line');
      expect(lines.find((l) => l.msg === 'greeting')).toMatchObject({ data: { who: 'Ivy' }, reqId: expect.any(String), remoteAddress: '127.0.0.1', requestId: expect.anything(), ...ids });
      expect(lines.find((l) => l.msg === 'mcp request' && l.tool === 'greet')).toMatchObject({ reqId: expect.any(String), remoteAddress: '127.0.0.1', ...ids });
      expect(child.mock.calls.length).toBeGreaterThanOrEqual(3); // the HTTP request's, the traced one, ctx.log's
      // Every child made for the request has the same long-lived parent: none is a child of another one made for it.
      const made = new Set(child.mock.results.map((r) => r.value as unknown));
      expect(child.mock.contexts.filter((parent) => made.has(parent))).toEqual([]);
      expect(new Set(child.mock.contexts).size).toBe(1);
    } finally {
      child.mockRestore();
    }
  });

  it('an elicitation through input requests: each round a span, the question a CLIENT span ending with its round', async () => {
    const result = await modern.callTool({ name: 'confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'action=accept' }]);
    await kit.waitForSpan('tools/call confirm', 2);
    const [asking, answered] = kit.spans().filter((s) => s.name === 'tools/call confirm');
    // The first round ends with the question (input_required: no error); the second with the answer.
    for (const round of [asking!, answered!]) {
      expect(round.kind).toBe(SpanKind.SERVER);
      expect(round.status.code).toBe(SpanStatusCode.UNSET);
      expect(attrs(round)).toMatchObject({ 'mcp.protocol.version': '2026-07-28' });
      expect(attrs(round)).not.toHaveProperty('error.type');
    }
    const ask = kit.span('elicitation/create');
    expect(ask.kind).toBe(SpanKind.CLIENT);
    expect(isChildOf(ask, asking!)).toBe(true);
    expect(ask.status.code).toBe(SpanStatusCode.UNSET);
    expect(modernAsked).toHaveLength(1);
    expect(modernAsked[0]!._meta).toMatchObject({ traceparent: `00-${ask.spanContext().traceId}-${ask.spanContext().spanId}-01` });
  });
});
