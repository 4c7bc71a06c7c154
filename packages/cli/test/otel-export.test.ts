import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startOtlpReceiver, waitFor, type OtlpReceiver } from '../../otel/test/otlp-receiver';
import type { OtlpSpan } from '../../otel/test/otlp-wire';
import { CliError } from '../src/errors';
import { serveSettings } from '../src/serve';
import { BIN, FIXTURES, ROOT, cleanEnv, requireBuild, run, runAsync, serveHttp, type Running } from './cli';

/**
 * `mcpx serve --otel` (and --metrics) end to end: the built command exports its spans and metrics
 * to an OTLP/HTTP receiver this test runs on a loopback port, configured only by OTEL_* variables,
 * over HTTP in both OTLP encodings and over stdio, whose stdout stays the protocol's alone.
 */

const TRACED = join(FIXTURES, 'traced.js');
const SERVER = 2; // OTLP's SPAN_KIND_SERVER
const STATUS_ERROR = 2;
/** A parent the client sends in `_meta`, as the 2026-07-28 spec carries trace context. */
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('--otel, --metrics and --metrics-port map onto listen() and serveStdio()', () => {
  const settings = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const s = serveSettings([TRACED, ...argv], env);
    if (s === 'help') throw new Error('unexpected help');
    return s;
  };

  it('are in mcpx serve --help with their variables', () => {
    const help = run(['serve', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^ {2}--otel {2,}traces and metrics over OTLP.* MCPX_OTEL$/m);
    expect(help.stdout).toMatch(/^ {2}--metrics {2,}Prometheus text at GET \/metrics.* MCPX_METRICS$/m);
    expect(help.stdout).toMatch(/^ {2}--metrics-port <n> {2,}serve \/metrics on this port instead.* MCPX_METRICS_PORT$/m);
  });

  it('are off unless given', () => {
    const s = settings([]);
    expect(s.otel).toBe(false);
    expect(s.http.metrics).toBeUndefined();
  });

  it('take --otel or MCPX_OTEL, on HTTP and stdio', () => {
    expect(settings(['--otel']).otel).toBe(true);
    expect(settings([], { MCPX_OTEL: '1' }).otel).toBe(true);
    expect(settings([], { MCPX_OTEL: 'yes' }).otel).toBe(true);
    expect(settings([], { MCPX_OTEL: 'false' }).otel).toBe(false);
    expect(settings(['--otel', '--stdio']).otel).toBe(true);
    expect(settings(['--stdio'], { MCPX_OTEL: 'true' }).otel).toBe(true);
  });

  it('take --metrics or MCPX_METRICS; --metrics-port or MCPX_METRICS_PORT moves /metrics to a port of its own and turns it on', () => {
    expect(settings(['--metrics']).http.metrics).toBe(true);
    expect(settings([], { MCPX_METRICS: '1' }).http.metrics).toBe(true);
    expect(settings([], { MCPX_METRICS: '0' }).http.metrics).toBe(false);
    expect(settings(['--metrics-port', '9464']).http.metrics).toEqual({ port: 9464 });
    expect(settings(['--metrics'], { MCPX_METRICS_PORT: '0' }).http.metrics).toEqual({ port: 0 });
    // Over stdio the variable has nothing to serve: it is left alone, as serveStdio() would.
    expect(settings(['--stdio'], { MCPX_METRICS: '1' }).http).toEqual({});
  });

  it.each([
    [['--metrics-port', 'x'], {}, /^--metrics-port must be an integer from 0 to 65535, got "x"$/],
    [['--metrics-port', '9464'], { MCPX_METRICS: 'off' }, /^--metrics-port serves \/metrics on a port of its own, but MCPX_METRICS turns metrics off$/],
    [['--stdio', '--metrics'], {}, /^--metrics applies to HTTP only, not --stdio: \/metrics is served over HTTP \(--otel exports metrics over OTLP from stdio too\)$/],
    [['--stdio', '--metrics-port', '9464'], {}, /^--metrics-port applies to HTTP only, not --stdio: \/metrics is served over HTTP/],
    [
      ['--stdio', '--otel'],
      { OTEL_TRACES_EXPORTER: 'otlp,console' },
      /^OTEL_TRACES_EXPORTER=console writes to stdout, which --stdio keeps for the protocol: use otlp \(or serve over HTTP\)$/,
    ],
    [['--stdio'], { MCPX_OTEL: '1', OTEL_METRICS_EXPORTER: 'console' }, /^OTEL_METRICS_EXPORTER=console writes to stdout/],
    [['--otel'], { MCPX_OTEL: 'maybe' }, null],
    [[], { MCPX_OTEL: 'maybe' }, /^MCPX_OTEL must be true or false \(1\/0, yes\/no\), got "maybe"$/],
  ] as [string[], NodeJS.ProcessEnv, RegExp | null][])('%j %j', (argv, env, message) => {
    let error: unknown;
    try {
      settings(argv, env);
    } catch (err) {
      error = err;
    }
    if (!message) return expect(error).toBeUndefined(); // the flag wins: the variable is not read
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(message);
  });
});

/** The variables of an operator pointing the SDK at the receiver, exporting soon after each call. */
function otelEnv(receiver: OtlpReceiver, extra: Record<string, string> = {}): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_METRIC_EXPORT_INTERVAL: '300', ...extra };
}

const spanNamed = (receiver: OtlpReceiver, name: string): OtlpSpan | undefined => receiver.spans().find((s) => s.name === name);

/** The `mcp.server.operation.duration` points received, flattened. */
const durationPoints = (receiver: OtlpReceiver) =>
  receiver
    .metrics()
    .filter((m) => m.name === 'mcp.server.operation.duration')
    .flatMap((m) => m.points.map((p) => ({ ...p, type: m.type, unit: m.unit })));

describe('mcpx serve --otel exports to an OTLP/HTTP receiver', () => {
  beforeAll(requireBuild);
  // Child processes start slower when the other suites run alongside.
  jest.setTimeout(60_000);

  let receiver: OtlpReceiver;
  let server: Running | undefined;
  let client: Client | undefined;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });

  afterEach(async () => {
    await client?.close().catch(() => {});
    client = undefined;
    if (server) await server.stop();
    server = undefined;
    await receiver.close();
  });

  it.each([
    ['http/json', 'application/json'],
    ['http/protobuf', 'application/x-protobuf'],
  ])('over HTTP with OTEL_EXPORTER_OTLP_PROTOCOL=%s', async (protocol, contentType) => {
    server = await serveHttp([TRACED, '--port', '0', '--otel'], otelEnv(receiver, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol }));
    client = new Client({ name: 'otel-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    const echoed = (await client.callTool({ name: 'echo', arguments: { text: 'hi' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } })) as CallToolResult;
    expect(echoed.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    const smudged = (await client.callTool({ name: 'smudge', arguments: {} })) as CallToolResult;
    expect(smudged.isError).toBe(true);

    const echo = await waitFor(
      () => spanNamed(receiver, 'tools/call echo'),
      () =>
        `the tools/call echo span; got ${
          receiver
            .spans()
            .map((s) => s.name)
            .join(', ') || 'none'
        }`,
    );
    expect(echo).toMatchObject({
      kind: SERVER,
      scope: '@mcpx/core',
      traceId: TRACE_ID,
      parentSpanId: PARENT_ID,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
        'mcp.session.id': transport.sessionId!.slice(0, 8),
        'mcp.protocol.version': '2025-11-25',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'network.protocol.version': '1.1',
        'client.address': '127.0.0.1',
      },
      resource: { 'service.name': 'traced', 'service.version': '2.0.0' },
    });
    expect(echo.status.code).not.toBe(STATUS_ERROR);
    const smudge = await waitFor(() => spanNamed(receiver, 'tools/call smudge'), 'the tools/call smudge span');
    expect(smudge).toMatchObject({ kind: SERVER, attributes: { 'gen_ai.tool.name': 'smudge', 'error.type': 'tool_error' }, status: { code: STATUS_ERROR } });
    expect(smudge.traceId).not.toBe(TRACE_ID);
    expect(spanNamed(receiver, 'initialize')?.attributes['mcp.method.name']).toBe('initialize');

    const points = await waitFor(() => {
      const found = durationPoints(receiver);
      return found.some((p) => p.attributes['gen_ai.tool.name'] === 'echo') && found.some((p) => p.attributes['gen_ai.tool.name'] === 'smudge') && found;
    }, 'the operation duration points of both calls');
    expect(points.find((p) => p.attributes['gen_ai.tool.name'] === 'echo')).toMatchObject({
      type: 'histogram',
      unit: 's',
      attributes: { 'mcp.method.name': 'tools/call', 'network.transport': 'tcp', 'mcp.protocol.version': '2025-11-25' },
    });
    expect(points.find((p) => p.attributes['gen_ai.tool.name'] === 'smudge')?.attributes['error.type']).toBe('tool_error');

    for (const r of receiver.requests) expect({ path: r.path, contentType: r.contentType }).toEqual({ path: r.path, contentType });
    if (protocol === 'http/protobuf') {
      // The bytes themselves, besides the decoding: the span's name and attribute keys as protobuf strings.
      const traces = Buffer.concat(receiver.requests.filter((r) => r.path === '/v1/traces').map((r) => r.body));
      for (const bytes of ['tools/call echo', 'gen_ai.tool.name', 'mcp.method.name', 'network.transport']) expect(traces.includes(Buffer.from(bytes))).toBe(true);
      const metrics = Buffer.concat(receiver.requests.filter((r) => r.path === '/v1/metrics').map((r) => r.body));
      expect(metrics.includes(Buffer.from('mcp.server.operation.duration'))).toBe(true);
    }

    await transport.terminateSession(); // DELETE: the session ends, and its duration is recorded
    await client.close();
    client = undefined;
    expect(await server.stop()).toBe(0);
    server = undefined;
    // Flushed on the way out, whatever the interval.
    const sessions = receiver.metrics().filter((m) => m.name === 'mcp.server.session.duration');
    expect(sessions.flatMap((m) => m.points)).toContainEqual(
      expect.objectContaining({ count: 1, attributes: expect.objectContaining({ 'mcp.protocol.version': '2025-11-25', 'network.transport': 'tcp' }) }),
    );
  });

  it('with --metrics beside it: the same points in the OTLP export and at GET /metrics', async () => {
    server = await serveHttp([TRACED, '--port', '0', '--otel', '--metrics'], otelEnv(receiver));
    expect(server.metricsUrl).toBe(new URL('/metrics', server.url).href);
    client = new Client({ name: 'otel-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const res = await fetch(server.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^mcp_server_operation_duration_seconds_count\{[^}]*mcp_method_name="tools\/call"[^}]*gen_ai_tool_name="echo"[^}]*\} 1$/m);
    expect(text).toMatch(/^target_info\{.*service_name="traced"/m);
    await waitFor(() => durationPoints(receiver).some((p) => p.attributes['gen_ai.tool.name'] === 'echo'), 'the OTLP point');
  });

  it('--metrics-port serves /metrics on a port of its own, without --otel exporting nothing over OTLP', async () => {
    server = await serveHttp([TRACED, '--port', '0', '--metrics-port', '0'], otelEnv(receiver));
    const metricsUrl = new URL(server.metricsUrl!);
    expect(metricsUrl.pathname).toBe('/metrics');
    expect(metricsUrl.port).not.toBe(new URL(server.url).port);
    client = new Client({ name: 'otel-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(await (await fetch(metricsUrl)).text()).toMatch(/^mcp_server_operation_duration_seconds_bucket\{[^}]*gen_ai_tool_name="echo"[^}]*le="\+Inf"\} 1$/m);
    expect((await fetch(new URL('/metrics', server.url))).status).toBe(404);
    expect(receiver.requests).toEqual([]);
  });

  it('a --metrics-port in use stops the command with exit code 1, naming that port', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await runAsync(['serve', TRACED, '--port', '0', '--metrics-port', String(port)]);
      expect({ status: r.status, stderr: r.stderr.trim() }).toEqual({ status: 1, stderr: `mcpx: cannot listen on 127.0.0.1:${port} (--metrics-port): address already in use` });
    } finally {
      taken.close();
    }
  });

  it('--otel over an SDK the process registered already stops the command, saying why', async () => {
    const r = await runAsync(['serve', TRACED, '--port', '0', '--otel'], { NODE_OPTIONS: `--require ${join(FIXTURES, 'own-sdk.js')}` });
    expect({ status: r.status, stderr: r.stderr.trim() }).toEqual({
      status: 1,
      stderr:
        'mcpx: cannot start: OpenTelemetry is already set up in this process (a global tracer or meter provider is registered): mcpx records through it as it is, so leave otel off (--otel, MCPX_OTEL)',
    });
  });

  it('over --stdio: spans and metrics arrive, and stdout carries the protocol only', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', TRACED, '--stdio', '--otel'],
      cwd: ROOT,
      // The SDK's own debug output too: it must all go to stderr.
      env: cleanEnv(otelEnv(receiver, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_LOG_LEVEL: 'debug' })) as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'otel-test', version: '1.0.0' });
    // A line on stdout that is not JSON-RPC surfaces here.
    const protocolErrors: Error[] = [];
    client.onerror = (err) => protocolErrors.push(err);
    await client.connect(transport);
    const echoed = (await client.callTool({ name: 'echo', arguments: { text: 'over a pipe' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } })) as CallToolResult;
    expect(echoed.content).toEqual([{ type: 'text', text: 'echo: over a pipe' }]);
    expect(((await client.callTool({ name: 'smudge', arguments: {} })) as CallToolResult).isError).toBe(true);

    const echo = await waitFor(() => spanNamed(receiver, 'tools/call echo'), 'the tools/call echo span');
    expect(echo).toMatchObject({
      kind: SERVER,
      traceId: TRACE_ID,
      parentSpanId: PARENT_ID,
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'network.transport': 'pipe', 'mcp.protocol.version': '2025-11-25' },
      resource: { 'service.name': 'traced' },
    });
    expect(echo.attributes['mcp.session.id']).toBeUndefined();
    expect(echo.attributes['client.address']).toBeUndefined();
    await waitFor(() => durationPoints(receiver).some((p) => p.attributes['gen_ai.tool.name'] === 'echo' && p.attributes['network.transport'] === 'pipe'), 'the stdio duration point');

    // Closing stdin ends the session: the server flushes before it exits, the session's duration among the rest.
    await client.close();
    client = undefined;
    await waitFor(
      () => receiver.metrics().some((m) => m.name === 'mcp.server.session.duration' && m.points.some((p) => p.attributes['network.transport'] === 'pipe')),
      'the stdio session duration, flushed at exit',
    );
    expect(protocolErrors).toEqual([]);
    expect(stderr).toMatch(/^@mcpx\/otel debug: /m);
  });
});
