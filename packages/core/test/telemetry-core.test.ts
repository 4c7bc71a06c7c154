/**
 * The engine's telemetry on the paths a transport test does not reach easily, with the in-process
 * client: requests cancelled or refused before a handler runs, notifications, names the server
 * does not know, a question the client refuses, tasks that fail or are cancelled (both eras),
 * the in-flight cap, a meter without a tracer, and an ambient span (HTTP instrumentation) as the
 * parent. Providers reach the engine through `engine.telemetry.use()`; the context manager is the
 * one global, registered for this file.
 */
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { connect, memoryLogger, rpcErrorOf, RpcError, type TestClient } from '@mcpx/testing';
import { createEngine, type EngineOptions } from '../src';
import type { McpEngine } from '../src/engine/engine';
import { Traced } from './telemetry-fixture';
import { SpanKind, histogramPoints, isChildOf, nanos, newTraceparent, otelKit, parentIdOf, valueOf, waitUntil, type OtelKit } from './telemetry-kit';

const TASKS = 'io.modelcontextprotocol/tasks';
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => context.disable());

let kit: OtelKit;
let fixture: Traced;
let engine: McpEngine;
const clients: TestClient[] = [];
let lines: Record<string, any>[];

/** A fresh server whose telemetry goes to a fresh kit. */
function serve(options: EngineOptions = {}, providers: 'both' | 'meter' = 'both'): McpEngine {
  kit = otelKit();
  fixture = new Traced();
  fixture.tracer = kit.tracerProvider.getTracer('app');
  const memory = memoryLogger('info');
  lines = memory.lines;
  engine = createEngine(fixture, { logger: memory.logger, tasks: { pollIntervalMs: 10 }, ...options });
  engine.telemetry.use(providers === 'both' ? kit.providers : { meterProvider: kit.providers.meterProvider });
  return engine;
}

async function client(options: Parameters<typeof connect>[1] = {}): Promise<TestClient> {
  const c = await connect(engine, options);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await kit?.shutdown();
});

describe('requests that end without a result', () => {
  it('a cancelled request ends its span as cancelled (no response is sent)', async () => {
    serve();
    const c = await client();
    const abort = new AbortController();
    const call = c.request('tools/call', { name: 'wait', arguments: { gate: 'never' } }, { signal: abort.signal });
    await waitUntil(() => fixture.waiting.has('never'), 'the call to wait');
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow(/aborted/);
    const span = await kit.waitForSpan('tools/call wait');
    expect(span.attributes['error.type']).toBe('cancelled');
    expect(span.attributes).not.toHaveProperty('rpc.response.status_code');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'The client cancelled the request' });
    const notification = await kit.waitForSpan('notifications/cancelled');
    expect(notification.kind).toBe(SpanKind.SERVER);
    expect(notification.attributes).not.toHaveProperty('error.type');
    const points = histogramPoints(await kit.points('mcp.server.operation.duration'), { 'gen_ai.tool.name': 'wait' });
    expect(points.map((p) => p.attributes['error.type'])).toEqual(['cancelled']);
    expect(engine.telemetry.requestsActive).toBe(0);
  });

  it('a request refused before its handler runs still has its span: not initialized', async () => {
    serve();
    const c = await client({ initialize: false });
    expect((await rpcErrorOf(c.listTools())).code).toBe(-32600);
    const span = await kit.waitForSpan('tools/list');
    expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'error.type': '-32600', 'rpc.response.status_code': '-32600' });
    expect(span.attributes).not.toHaveProperty('mcp.protocol.version');
  });

  it('a method the server does not know is _OTHER in the span name and the metric, its own name only on the span', async () => {
    serve();
    const c = await client();
    expect((await rpcErrorOf(c.request('made/up', {}))).code).toBe(-32601);
    const span = await kit.waitForSpan('_OTHER');
    expect(span.attributes).toMatchObject({ 'mcp.method.name': 'made/up', 'error.type': '-32601' });
    const points = histogramPoints(await kit.points('mcp.server.operation.duration'), { 'error.type': '-32601' });
    expect(points.map((p) => p.attributes['mcp.method.name'])).toEqual(['_OTHER']);
  });

  it('an unknown notification is an _OTHER span; an unknown prompt keeps its name out of the span name and metric', async () => {
    serve();
    const c = await client();
    c.notify('notifications/made_up', { x: 1 });
    const notification = await kit.waitForSpan('_OTHER');
    expect(notification.attributes).toMatchObject({ 'mcp.method.name': 'notifications/made_up', 'mcp.protocol.version': '2025-11-25' });
    expect(notification.attributes).not.toHaveProperty('jsonrpc.request.id');
    await rpcErrorOf(c.getPrompt('no-such-prompt'));
    const span = await kit.waitForSpan('prompts/get');
    expect(span.attributes).toMatchObject({ 'gen_ai.prompt.name': 'no-such-prompt', 'error.type': '-32602' });
    const [point] = histogramPoints(await kit.points('mcp.server.operation.duration'), { 'mcp.method.name': 'prompts/get' });
    expect(point!.attributes).not.toHaveProperty('gen_ai.prompt.name');
  });

  it('the in-flight cap: the refused request is a -32004 span and a limit refusal', async () => {
    serve({ maxRequestsInFlight: 1 });
    const c = await client();
    const held = c.callTool('wait', { gate: 'hold' });
    await waitUntil(() => fixture.waiting.has('hold'), 'the first call to wait');
    const refused = await rpcErrorOf(c.callTool('greet', { name: 'Ada' }));
    expect(refused.code).toBe(-32004);
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.attributes).toMatchObject({ 'error.type': '-32004', 'rpc.response.status_code': '-32004' });
    expect(valueOf(await kit.points('mcpx.refusal.count'), { 'mcpx.refusal.reason': 'limit' })).toBe(1);
    expect((await kit.points('mcpx.refusal.count'))[0]!.attributes).toEqual({ 'mcpx.refusal.reason': 'limit', 'mcpx.limit': 'maxRequestsInFlight' });
    fixture.open('hold');
    await held;
  });

  it('the in-flight cap of a 2026-07-28 stream counts its refusal too', async () => {
    serve({ maxRequestsInFlight: 1 });
    const c = await client({ protocolVersion: '2026-07-28' });
    const held = c.callTool('wait', { gate: 'hold-modern' });
    await waitUntil(() => fixture.waiting.has('hold-modern'), 'the first call to wait');
    expect((await rpcErrorOf(c.callTool('greet', { name: 'Ada' }))).code).toBe(-32004);
    expect(await kit.points('mcpx.refusal.count')).toEqual([expect.objectContaining({ attributes: { 'mcpx.refusal.reason': 'limit', 'mcpx.limit': 'maxRequestsInFlight' }, value: 1 })]);
    fixture.open('hold-modern');
    await held;
  });
});

describe('questions to the client', () => {
  it('a question the client answers with an error ends its CLIENT span with that code', async () => {
    serve();
    const c = await client({ capabilities: { elicitation: { form: {} } } });
    c.onRequest('elicitation/create', () => {
      throw new RpcError(-32000, 'the user walked away');
    });
    const result = await c.callTool('confirm');
    expect(result.isError).toBe(true);
    const call = await kit.waitForSpan('tools/call confirm');
    const ask = kit.span('elicitation/create');
    expect(isChildOf(ask, call)).toBe(true);
    expect(ask.attributes['error.type']).toBe('-32000');
    expect(ask.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the user walked away' });
    expect(call.attributes['error.type']).toBe('tool_error');
  });
});

describe('tasks', () => {
  it('a legacy task that fails: its span says how, and its log lines carry its span', async () => {
    serve();
    const c = await client({ capabilities: {} });
    const created = await c.request<{ task: { taskId: string } }>('tools/call', { name: 'wait', arguments: { gate: 'fail-1', fail: true }, task: { ttl: 60_000 } });
    const call = await kit.waitForSpan('tools/call wait');
    fixture.open('fail-1');
    const work = await kit.waitForSpan('execute_tool wait');
    expect(isChildOf(work, call)).toBe(true);
    expect(work.attributes).toMatchObject({ 'mcpx.task.id': created.task.taskId, 'mcpx.task.status': 'failed', 'error.type': 'tool_error' });
    expect(work.status.code).toBe(SpanStatusCode.ERROR);
    expect(work.events.map((e) => e.attributes?.['exception.message'])).toEqual(['failed past fail-1']);
    expect(lines.find((l) => l.msg === 'passed')).toMatchObject({ trace_id: work.spanContext().traceId, span_id: work.spanContext().spanId, taskId: created.task.taskId });
  });

  it('a legacy task cancelled with tasks/cancel: its span ends cancelled', async () => {
    serve();
    const c = await client();
    const created = await c.request<{ task: { taskId: string } }>('tools/call', { name: 'wait', arguments: { gate: 'never' }, task: { ttl: 60_000 } });
    await waitUntil(() => fixture.waiting.has('never'), 'the task to wait');
    await c.request('tasks/cancel', { taskId: created.task.taskId });
    const work = await kit.waitForSpan('execute_tool wait');
    expect(work.attributes).toMatchObject({ 'mcpx.task.status': 'cancelled', 'error.type': 'cancelled' });
    expect(kit.span('tasks/cancel').attributes['mcpx.task.id']).toBe(created.task.taskId);
    expect(valueOf(await kit.points('mcpx.task.count'), { 'mcpx.task.status': 'cancelled' })).toBe(1);
  });

  it('2026-07-28 tasks extension: a call that answers at once runs under the request span; one that outlives its turn gets a task span', async () => {
    serve();
    const c = await client({ protocolVersion: '2026-07-28', capabilities: { extensions: { [TASKS]: {} } } });
    const quick = await c.callTool('whichSpan');
    const quickSpan = await kit.waitForSpan('tools/call whichSpan');
    expect(quick.content).toEqual([{ type: 'text', text: `${quickSpan.spanContext().spanId} recording=true` }]);

    const created = await c.callTool('wait', { gate: 'modern-task' });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = (created as unknown as { taskId: string }).taskId;
    const call = await kit.waitForSpan('tools/call wait');
    expect(call.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28' });
    expect(call.attributes).not.toHaveProperty('mcp.session.id');
    fixture.open('modern-task');
    const work = await kit.waitForSpan('execute_tool wait');
    expect(work.kind).toBe(SpanKind.INTERNAL);
    expect(isChildOf(work, call)).toBe(true);
    // The work ended after the call's span did (the gate opened only then). Spans read a clock
    // anchored to Date.now() when their trace's clock was made, whose millisecond resolution can put
    // a later end up to a millisecond earlier: compared within that, not to the nanosecond.
    expect(nanos(work.endTime) + 1_000_000n >= nanos(call.endTime)).toBe(true);
    expect(work.attributes).toMatchObject({ 'mcpx.task.id': taskId, 'mcpx.task.status': 'completed' });
  });
});

describe('parents and providers', () => {
  it('an ambient span (HTTP instrumentation) is the parent; with a _meta traceparent it becomes a link', async () => {
    serve();
    const c = await client();
    const outer = kit.tracerProvider.getTracer('http-instrumentation');
    await outer.startActiveSpan('POST /mcp', async (http) => {
      await c.callTool('greet', { name: 'Ada' });
      http.end();
    });
    const httpSpan = kit.span('POST /mcp');
    const first = await kit.waitForSpan('tools/call greet');
    expect(isChildOf(first, httpSpan)).toBe(true);

    const meta = newTraceparent();
    kit.reset();
    await outer.startActiveSpan('POST /mcp raw', async (http) => {
      await c.request('tools/call', { name: 'greet', arguments: { name: 'Cy' }, _meta: { traceparent: meta.traceparent } });
      http.end();
    });
    const raw = kit.span('POST /mcp raw');
    const second = await kit.waitForSpan('tools/call greet');
    expect(second.spanContext().traceId).toBe(meta.traceId);
    expect(parentIdOf(second)).toBe(meta.spanId);
    expect(second.links.map((l) => l.context.spanId)).toEqual([raw.spanContext().spanId]);
  });

  it('a meter without a tracer: metrics, but no spans and no trace ids on the log lines', async () => {
    serve({}, 'meter');
    expect(engine.telemetry.tracer()).toBeUndefined();
    const c = await client();
    const result = await c.callTool('recording');
    expect(result.content).toEqual([{ type: 'text', text: 'recording=false valid=false' }]);
    await c.callTool('greet', { name: 'Ada' });
    expect(kit.spans()).toEqual([]);
    const [point] = histogramPoints(await kit.points('mcp.server.operation.duration'), { 'gen_ai.tool.name': 'greet' });
    expect(point!.attributes).toEqual({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'greet', 'gen_ai.operation.name': 'execute_tool', 'mcp.protocol.version': '2025-11-25' });
    expect(lines.find((l) => l.msg === 'mcp request' && l.tool === 'greet')).not.toHaveProperty('trace_id');
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('a session closed records mcp.server.session.duration; the gauge follows the sessions open', async () => {
    serve();
    const first = await client();
    await client();
    expect(valueOf(await kit.points('mcpx.session.active'))).toBe(2);
    first.close();
    expect(valueOf(await kit.points('mcpx.session.active'))).toBe(1);
    const [point] = histogramPoints(await kit.points('mcp.server.session.duration'), {});
    expect(point!.attributes).toEqual({ 'mcp.protocol.version': '2025-11-25' });
    expect(point!.value.count).toBe(1);
  });
});
