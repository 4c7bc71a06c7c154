/**
 * listen()'s `otel` option (and MCPX_OTEL): the OpenTelemetry Node SDK started through @mcpx/otel,
 * configured only by OTEL_* variables, exporting over OTLP/HTTP to a receiver on a loopback port.
 * The server runs in a process of its own (fixtures/otel-http-server.ts; the OTLP exporters load
 * code jest's module sandbox cannot), and the official client calls it. The batch delay and the
 * export interval are a minute long: what the receiver holds once the server stopped was flushed
 * by the stop itself.
 */
import 'reflect-metadata';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { Server } from '@mcpx/core';
import { startOtlpReceiver, waitFor, type OtlpReceiver } from '../../otel/test/otlp-receiver';
import { connectPeer } from './sdk-http-fixture';
import { request, startServer } from './http-kit';

const ROOT = resolve(__dirname, '../../..');
const RUN_TS = resolve(ROOT, 'packages/stdio/test/fixtures/run-ts.js');
const FIXTURE = resolve(__dirname, 'fixtures/otel-http-server.ts');
const SERVER_KIND = 2;

// A process of its own, compiling the fixture and loading the SDK, on a machine busy with other suites.
jest.setTimeout(120_000);

interface Served {
  url: string;
  metricsUrl?: string;
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
}

let receiver: OtlpReceiver;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await receiver.close();
});

/** Starts the fixture with exactly these OTEL_* and MCPX_* variables (none inherited) and these listen() options. */
async function serve(env: Record<string, string>, options: Record<string, unknown> = {}): Promise<Served> {
  const base: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('OTEL_') && !key.startsWith('MCPX_')) base[key] = value;
  const child = spawn(process.execPath, [RUN_TS, FIXTURE, JSON.stringify(options)], {
    cwd: ROOT,
    env: { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_METRIC_EXPORT_INTERVAL: '60000', ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const line = await waitFor(
    () => (stdout.includes('\n') ? stdout.slice(0, stdout.indexOf('\n')) : child.exitCode !== null ? `exited ${child.exitCode}` : undefined),
    () => `the server's URL (stderr: ${stderr})`,
    60_000,
  );
  if (!line.startsWith('{')) throw new Error(`the fixture did not start: ${line}; stderr: ${stderr}`);
  return { ...(JSON.parse(line) as { url: string; metricsUrl?: string }), child, stderr: () => stderr };
}

/** SIGTERM: listen() drains, closes and exits 0; the exit code once it has. */
function stop(served: Served): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => served.child.once('exit', (code) => resolve(code)));
  served.child.kill('SIGTERM');
  return exited;
}

/** One tool call with the official client, then the session ends (DELETE). */
async function oneCall(url: string): Promise<void> {
  const peer = await connectPeer(url);
  expect(await peer.client.callTool({ name: 'echo', arguments: { text: 'traced' } })).toMatchObject({ content: [{ type: 'text', text: 'traced' }] });
  await peer.transport.terminateSession();
  await peer.client.close();
}

const operationPoints = () =>
  receiver
    .metrics()
    .filter((m) => m.name === 'mcp.server.operation.duration')
    .flatMap((m) => m.points);

describe('listen() with otel', () => {
  it.each(['http/json', 'http/protobuf'])('exports the request spans and the metrics over OTLP (%s), flushed when the server stops', async (protocol) => {
    const served = await serve({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol }, { otel: true });
    await oneCall(served.url);
    // Nothing exported yet: a minute of batch delay and export interval.
    expect(receiver.requests).toEqual([]);
    expect(await stop(served)).toBe(0);

    const spans = receiver.spans();
    const call = spans.find((s) => s.name === 'tools/call echo');
    expect(call).toMatchObject({
      kind: SERVER_KIND,
      scope: '@mcpx/core',
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'network.protocol.version': '1.1',
        'client.address': '127.0.0.1',
        'mcp.protocol.version': '2025-11-25',
      },
      resource: { 'service.name': 'otel-fixture', 'service.version': '2.0.0' },
    });
    expect(call!.attributes['mcp.session.id']).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(typeof call!.attributes['client.port']).toBe('number');
    // The session's first message is traced too: the SDK was on before anything was served.
    expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call echo']));

    expect(operationPoints()).toContainEqual(expect.objectContaining({ count: 1, attributes: expect.objectContaining({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' }) }));
    // The session ended before the last export: its duration is in it.
    const sessions = receiver
      .metrics()
      .filter((m) => m.name === 'mcp.server.session.duration')
      .flatMap((m) => m.points);
    expect(sessions).toContainEqual(expect.objectContaining({ count: 1, attributes: expect.objectContaining({ 'network.transport': 'tcp', 'mcp.protocol.version': '2025-11-25' }) }));
  });

  it('is turned on by MCPX_OTEL=1, and shares its MeterProvider with /metrics (MCPX_METRICS=1)', async () => {
    const served = await serve({ MCPX_OTEL: '1', MCPX_METRICS: 'true', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    await oneCall(served.url);
    const scraped = await request(served.metricsUrl!);
    expect(scraped.status).toBe(200);
    expect(scraped.body).toMatch(/^mcp_server_operation_duration_seconds_count\{[^}]*mcp_method_name="tools\/call"[^}]*gen_ai_tool_name="echo"[^}]*\} 1$/m);
    expect(await stop(served)).toBe(0);
    expect(receiver.spans().map((s) => s.name)).toContain('tools/call echo');
    expect(operationPoints()).toContainEqual(expect.objectContaining({ count: 1, attributes: expect.objectContaining({ 'gen_ai.tool.name': 'echo' }) }));
  });
});

@Server({ name: 'no-otel', version: '1.0.0' })
class Plain {}

describe('listen() without @mcpx/otel installed', () => {
  afterEach(() => jest.dontMock('@mcpx/otel'));

  it('fails to start with a clear error when otel or metrics is asked for', async () => {
    // As npm leaves a missing optional peer: the module cannot be found.
    jest.doMock('@mcpx/otel', () => {
      throw Object.assign(new Error("Cannot find module '@mcpx/otel'"), { code: 'MODULE_NOT_FOUND' });
    });
    await expect(startServer(new Plain(), { otel: true })).rejects.toThrow(
      'OpenTelemetry (the otel and metrics options, MCPX_OTEL, MCPX_METRICS) needs the @mcpx/otel package: npm install @mcpx/otel',
    );
    await expect(startServer(new Plain(), { metrics: true })).rejects.toThrow('needs the @mcpx/otel package');
  });
});
