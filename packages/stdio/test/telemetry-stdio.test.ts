/**
 * Traces and metrics over stdio, read from the OpenTelemetry SDK's in-memory exporter and an
 * on-demand metric reader. serveStdio runs in this process on in-memory streams (the bytes it
 * writes are exactly what stdout would carry), and the official clients (1.x for 2025-11-25, 2.x
 * for 2026-07-28) speak newline-delimited JSON over them; so the spans are read in process, with
 * no exporter between. Every line the server wrote is checked to be one JSON-RPC message: tracing
 * writes nothing to the protocol stream.
 */
import { PassThrough } from 'node:stream';
import { context, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, type ElicitRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { memoryLogger } from '@mcpx/testing';
import { createEngine } from '@mcpx/core';
import { semconv } from '@mcpx/core/telemetry';
import { serveStdio, type StdioServer } from '@mcpx/stdio';
import { NOTE_URI, Traced } from '../../core/test/telemetry-fixture';
import { SpanKind, histogramPoints, isChildOf, nanos, newTraceparent, otelKit, parentIdOf, waitUntil } from '../../core/test/telemetry-kit';

/** Newline-delimited JSON-RPC over serveStdio's streams, in the shape both client SDKs take; keeps every line the server wrote. */
class StreamTransport {
  onmessage?: (message: any) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Every line the server wrote, as written. */
  readonly lines: string[] = [];
  private buffer = '';

  constructor(
    private readonly input: PassThrough,
    output: PassThrough,
  ) {
    output.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        this.onmessage?.(JSON.parse(line));
      }
    });
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage | object): Promise<void> {
    this.input.write(JSON.stringify(message) + '\n');
  }

  async close(): Promise<void> {
    this.input.end();
    this.onclose?.();
  }
}

const kit = otelKit();
const contextManager = new AsyncLocalStorageContextManager();
const { logger, lines } = memoryLogger('info');

/** A server on fresh streams, its telemetry going to the kit; its transport for a client. */
function serve(): { server: StdioServer; transport: StreamTransport; fixture: Traced } {
  const fixture = new Traced();
  fixture.tracer = kit.tracerProvider.getTracer('app');
  const engine = createEngine(fixture, { logger, tasks: { pollIntervalMs: 10 } });
  engine.telemetry.use(kit.providers);
  const input = new PassThrough();
  const output = new PassThrough();
  const server = serveStdio(engine, { input, output, exitProcess: false });
  return { server, transport: new StreamTransport(input, output), fixture };
}

/** Every line is one JSON-RPC 2.0 message (nothing else reached the protocol stream). */
function expectOnlyProtocol(transport: StreamTransport): void {
  expect(transport.lines.length).toBeGreaterThan(0);
  for (const line of transport.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
}

const attrs = (span: ReadableSpan) => span.attributes;

beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(async () => {
  await kit.shutdown();
  context.disable();
});
beforeEach(() => {
  kit.reset();
  lines.length = 0;
});

describe('a 2025-11-25 client over stdio', () => {
  let served: ReturnType<typeof serve>;
  let client: Client;
  const elicitations: ElicitRequest[] = [];
  const elicitationIds: (string | number)[] = [];

  beforeAll(async () => {
    served = serve();
    client = new Client({ name: 'stdio-telemetry', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      elicitations.push(request);
      elicitationIds.push(extra.requestId);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(served.transport as unknown as Transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('a tool call: one SERVER span, network.transport pipe, no session id, no HTTP attributes', async () => {
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(parentIdOf(span)).toBeUndefined();
    expect(attrs(span)).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'pipe',
    });
    expectOnlyProtocol(served.transport);
  });

  it('failures: isError is tool_error; a thrown McpError its code, with rpc.response.status_code', async () => {
    expect((await client.callTool({ name: 'refuse', arguments: {} })).isError).toBe(true);
    await expect(client.callTool({ name: 'strict', arguments: {} })).rejects.toThrow(/strict says no/);
    const refused = await kit.waitForSpan('tools/call refuse');
    expect(attrs(refused)).toMatchObject({ 'error.type': 'tool_error', 'network.transport': 'pipe' });
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);
    const strict = await kit.waitForSpan('tools/call strict');
    expect(attrs(strict)).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(strict.status).toEqual({ code: SpanStatusCode.ERROR, message: 'strict says no' });
  });

  it('a resource read and a prompt', async () => {
    await client.readResource({ uri: NOTE_URI });
    await client.getPrompt({ name: 'summarize', arguments: { topic: 'pipes' } });
    expect(attrs(await kit.waitForSpan('resources/read'))).toMatchObject({ 'mcp.method.name': 'resources/read', 'mcp.resource.uri': NOTE_URI, 'network.transport': 'pipe' });
    expect(attrs(await kit.waitForSpan('prompts/get summarize'))).toMatchObject({ 'mcp.method.name': 'prompts/get', 'gen_ai.prompt.name': 'summarize' });
  });

  it('an elicitation: a CLIENT span under the call, whose traceparent the client receives in _meta', async () => {
    elicitations.length = 0;
    elicitationIds.length = 0;
    const result = await client.callTool({ name: 'confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'action=accept' }]);
    const call = await kit.waitForSpan('tools/call confirm');
    const ask = kit.span('elicitation/create');
    expect(ask.kind).toBe(SpanKind.CLIENT);
    expect(isChildOf(ask, call)).toBe(true);
    expect(attrs(ask)).toEqual({ 'mcp.method.name': 'elicitation/create', 'jsonrpc.request.id': String(elicitationIds[0]) });
    expect(elicitations[0]!.params._meta).toMatchObject({ traceparent: `00-${ask.spanContext().traceId}-${ask.spanContext().spanId}-01` });
    expectOnlyProtocol(served.transport);
  });

  it('a task: the execute_tool span is a child of the call and ends after it', async () => {
    const created = await client.request({ method: 'tools/call', params: { name: 'wait', arguments: { gate: 'stdio-task' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const call = await kit.waitForSpan('tools/call wait');
    await waitUntil(() => served.fixture.waiting.has('stdio-task'), 'the task to wait at its gate');
    served.fixture.open('stdio-task');
    const work = await kit.waitForSpan('execute_tool wait');
    expect(work.kind).toBe(SpanKind.INTERNAL);
    expect(isChildOf(work, call)).toBe(true);
    expect(nanos(work.endTime) > nanos(call.endTime)).toBe(true);
    expect(attrs(work)).toMatchObject({ 'mcpx.task.id': created.task.taskId, 'mcpx.task.status': 'completed', 'gen_ai.tool.name': 'wait' });
    const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'passed stdio-task' }]);
  });

  it('a traceparent in _meta is the parent; spans the tool starts and its log lines follow the request span', async () => {
    const parent = newTraceparent();
    await client.callTool({ name: 'ambient', arguments: {}, _meta: { traceparent: parent.traceparent } });
    const call = await kit.waitForSpan('tools/call ambient');
    expect(call.spanContext().traceId).toBe(parent.traceId);
    expect(parentIdOf(call)).toBe(parent.spanId);
    expect(isChildOf(kit.span('app.ambient'), call)).toBe(true);

    await client.callTool({ name: 'greet', arguments: { name: 'Bo' } });
    const greet = await kit.waitForSpan('tools/call greet');
    const ids = { trace_id: greet.spanContext().traceId, span_id: greet.spanContext().spanId };
    await waitUntil(() => lines.some((l) => l.msg === 'mcp request' && l.tool === 'greet'), 'the request line');
    expect(lines.find((l) => l.msg === 'greeting')).toMatchObject(ids);
    expect(lines.find((l) => l.msg === 'mcp request' && l.tool === 'greet')).toMatchObject(ids);
  });

  it('mcp.server.operation.duration over stdio', async () => {
    await client.callTool({ name: 'greet', arguments: { name: 'Cy' } });
    await kit.waitForSpan('tools/call greet');
    const [point] = histogramPoints(await kit.points('mcp.server.operation.duration'), { 'gen_ai.tool.name': 'greet' });
    expect(point!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'pipe',
    });
    expect(point!.value.buckets.boundaries).toEqual(semconv.DURATION_BUCKETS);
    expect(histogramPoints(await kit.points('mcp.server.operation.duration'), { 'gen_ai.tool.name': 'refuse' })[0]!.attributes['error.type']).toBe('tool_error');
  });

  it('the input ending ends the session: mcp.server.session.duration, and the protocol stream held only messages', async () => {
    expect(await kit.points('mcp.server.session.duration')).toEqual([]);
    await client.close();
    await served.server.closed;
    const [point] = histogramPoints(await kit.points('mcp.server.session.duration'), {});
    expect(point!.attributes).toEqual({ 'mcp.protocol.version': '2025-11-25', 'network.transport': 'pipe' });
    expect(point!.value.count).toBe(1);
    expectOnlyProtocol(served.transport);
  });
});

describe('a 2026-07-28 client over stdio', () => {
  it('one SERVER span per request, with the modern version and the _meta traceparent as parent; no session duration', async () => {
    const served = serve();
    const client = new ModernClient({ name: 'stdio-modern-telemetry', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    client.onerror = () => {};
    await client.connect(served.transport as never, { timeout: 10_000 });
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const parent = newTraceparent();
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Di' }, _meta: { traceparent: parent.traceparent } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Di' }]);
    const span = await kit.waitForSpan('tools/call greet');
    expect(span.spanContext().traceId).toBe(parent.traceId);
    expect(parentIdOf(span)).toBe(parent.spanId);
    expect(attrs(span)).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': expect.any(String),
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'pipe',
    });
    expectOnlyProtocol(served.transport);
    const sessionsEnded = async () => histogramPoints(await kit.points('mcp.server.session.duration'), {}).map((p) => [p.attributes, p.value.count]);
    const before = await sessionsEnded();
    await client.close();
    await served.server.closed;
    // The stream's session was never initialized (2026-07-28 has none): no session duration for it.
    expect(await sessionsEnded()).toEqual(before);
  });
});
