/**
 * serveStdio's `otel` option (and MCPX_OTEL): the official client spawns a stdio server
 * (fixtures/otel-stdio-server.ts) whose spans and metrics go over OTLP/HTTP, configured only by
 * the OTEL_* variables, to a receiver on a loopback port; stdout carries the protocol alone. The
 * batch delay and export interval are a minute long: what arrives was flushed as the session closed.
 */
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@mcpx/core';
import { serveStdio } from '@mcpx/stdio';
import { startOtlpReceiver, waitFor, type OtlpReceiver } from '../../otel/test/otlp-receiver';
import { fixtureServer } from './line-peer';

const SERVER_KIND = 2;

// A process of its own, compiling the fixture and loading the SDK, on a machine busy with other suites.
jest.setTimeout(120_000);

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(() => receiver.close());

/** The fixture's command, with exactly these OTEL_* and MCPX_* variables (none inherited). */
function command(env: Record<string, string>, options: Record<string, unknown> = {}) {
  const server = fixtureServer('otel-stdio-server.ts');
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(server.env)) if (!key.startsWith('OTEL_') && !key.startsWith('MCPX_')) base[key] = value;
  return {
    ...server,
    args: [...server.args, JSON.stringify(options)],
    env: { ...base, MCPX_LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_METRIC_EXPORT_INTERVAL: '60000', ...env },
  };
}

describe('serveStdio with otel', () => {
  it.each([
    ['MCPX_OTEL=1', { MCPX_OTEL: '1' }, {}],
    ['the otel option', {}, { otel: true }],
  ])('exports spans and metrics over OTLP when turned on by %s, and stdout stays the protocol', async (_how, env, options) => {
    const transport = new StdioClientTransport({ ...command({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, options), stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'otel-stdio-test', version: '1.0.0' });
    // Anything on stdout that is not a JSON-RPC message would land here.
    const errors: Error[] = [];
    client.onerror = (error) => void errors.push(error);
    await client.connect(transport);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'piped' } })).toMatchObject({ content: [{ type: 'text', text: 'piped' }] });
    expect(receiver.requests).toEqual([]);
    await client.close(); // stdin ends: the session closes, OpenTelemetry flushes, the process exits

    const spans = await waitFor(
      () => receiver.spans().length > 0 && receiver.spans(),
      () => `spans (stderr: ${stderr})`,
      30_000,
    );
    const call = spans.find((s) => s.name === 'tools/call echo');
    expect(call).toMatchObject({
      kind: SERVER_KIND,
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'network.transport': 'pipe', 'mcp.protocol.version': '2025-11-25' },
      resource: { 'service.name': 'otel-stdio-fixture', 'service.version': '3.0.0' },
    });
    // stdio holds no session id, and no HTTP.
    expect(call!.attributes).not.toHaveProperty('mcp.session.id');
    expect(call!.attributes).not.toHaveProperty('network.protocol.name');
    // The first message was read once OpenTelemetry was on: initialize is traced too.
    expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call echo']));
    // The ctx.log line of the call carries its trace (pino on stderr).
    const echoing = stderr.split('\n').find((line) => line.includes('"msg":"echoing"'));
    expect(echoing && JSON.parse(echoing)).toMatchObject({ trace_id: call!.traceId, span_id: call!.spanId });

    const metrics = await waitFor(() => receiver.metrics().length > 0 && receiver.metrics(), 'metrics');
    const operations = metrics.filter((m) => m.name === 'mcp.server.operation.duration').flatMap((m) => m.points);
    expect(operations).toContainEqual(
      expect.objectContaining({ count: 1, attributes: expect.objectContaining({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'network.transport': 'pipe' }) }),
    );
    // The session closed before the last export: its duration is in it.
    const sessions = metrics.filter((m) => m.name === 'mcp.server.session.duration').flatMap((m) => m.points);
    expect(sessions).toContainEqual(expect.objectContaining({ count: 1, attributes: expect.objectContaining({ 'network.transport': 'pipe' }) }));
    expect(errors).toEqual([]);
  });
});

@Server({ name: 'no-otel', version: '1.0.0' })
class Plain {}

describe('serveStdio without @mcpx/otel installed', () => {
  afterEach(() => jest.dontMock('@mcpx/otel'));

  it('logs a clear error and closes without reading a message', async () => {
    // As npm leaves a missing optional peer: the module cannot be found.
    jest.doMock('@mcpx/otel', () => {
      throw Object.assign(new Error("Cannot find module '@mcpx/otel'"), { code: 'MODULE_NOT_FOUND' });
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const written: string[] = [];
    output.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const server = serveStdio(new Plain(), { input, output, logger, otel: true, exitProcess: false });
    await server.closed;
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'OpenTelemetry could not start',
        err: expect.objectContaining({ message: expect.stringContaining('needs the @mcpx/otel package: npm install @mcpx/otel') }),
      }),
    );
    expect(written.join('')).toBe('');
  });
});
