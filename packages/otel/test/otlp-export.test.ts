import { startDriver, requireBuild, type Driver } from './driver';
import { startOtlpReceiver, waitFor, type OtlpReceiver } from './otlp-receiver';

/**
 * startOtel({ otlp: true }) in a real process, exporting to an OTLP/HTTP receiver on a loopback port,
 * configured only by the OTEL_* variables; both encodings; nothing ever on stdout.
 */

const SERVER = 2; // OTLP's SPAN_KIND_SERVER
const INTERNAL = 1;
const ERROR = 2; // STATUS_CODE_ERROR

let receiver: OtlpReceiver;
let driver: Driver | undefined;

beforeAll(requireBuild);
// A child process loads the SDK on a machine busy with other suites.
jest.setTimeout(60_000);

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await driver?.shutdown();
  driver = undefined;
  await receiver.close();
});

/** Runs the driver to the end and returns what it reported and printed. */
async function runToEnd(env: Record<string, string>, options: Parameters<typeof startDriver>[1]) {
  driver = startDriver({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...env }, options);
  const report = await driver.report;
  const { code, stdout, stderr } = await driver.shutdown();
  driver = undefined;
  expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
  return { report, stderr };
}

it.each([
  ['http/json', 'application/json'],
  ['http/protobuf', 'application/x-protobuf'],
])('exports spans and metrics with OTEL_EXPORTER_OTLP_PROTOCOL=%s', async (protocol, contentType) => {
  const { report, stderr } = await runToEnd({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol }, { otlp: true, serviceName: 'notes', serviceVersion: '1.2.3' });
  expect(stderr).toBe('');
  expect(report).toMatchObject({ tracerProvider: true, meterProvider: true, globalMeterProvider: true, globals: { tracing: true, propagating: true } });
  expect(report.scrape).toBeUndefined();

  const traces = receiver.requests.filter((r) => r.path === '/v1/traces');
  expect(traces.length).toBeGreaterThan(0);
  for (const r of traces) expect(r.contentType).toBe(contentType);
  const spans = receiver.spans();
  const call = spans.find((s) => s.name === 'tools/call echo')!;
  expect(call).toMatchObject({
    kind: SERVER,
    scope: '@mcpx/core',
    attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'jsonrpc.request.id': '7' },
    status: { code: ERROR, message: 'boom' },
    resource: { 'service.name': 'notes', 'service.version': '1.2.3' },
  });
  // The context manager made the SERVER span active; the W3C propagator wrote it out.
  expect(spans.find((s) => s.name === 'inner')).toMatchObject({ kind: INTERNAL, traceId: call.traceId, parentSpanId: call.spanId });
  expect(report.traceparent).toBe(`00-${call.traceId}-${call.spanId}-01`);

  const metricRequests = receiver.requests.filter((r) => r.path === '/v1/metrics');
  expect(metricRequests.length).toBeGreaterThan(0);
  for (const r of metricRequests) expect(r.contentType).toBe(contentType);
  const duration = receiver.metrics().find((m) => m.name === 'mcp.server.operation.duration')!;
  expect(duration).toMatchObject({ unit: 's', type: 'histogram', resource: { 'service.name': 'notes' } });
  expect(duration.points).toEqual([{ attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' }, count: 1 }]);
});

it('exports spans after OTEL_BSP_SCHEDULE_DELAY and metrics every OTEL_METRIC_EXPORT_INTERVAL, while running', async () => {
  driver = startDriver({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_METRIC_EXPORT_INTERVAL: '100' }, { otlp: true });
  await driver.report;
  await waitFor(() => receiver.spans().some((s) => s.name === 'tools/call echo'), 'the span');
  // Two exports of the one point: the interval, not the shutdown, sent them.
  await waitFor(() => receiver.metrics().filter((m) => m.name === 'mcp.server.operation.duration').length >= 2, 'two metric exports');
});

it('lets OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES describe the service, and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT move the traces', async () => {
  await runToEnd(
    {
      OTEL_SERVICE_NAME: 'notes-prod',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/elsewhere/traces`,
    },
    { otlp: true, serviceName: 'notes' },
  );
  expect(new Set(receiver.requests.map((r) => r.path))).toEqual(new Set(['/elsewhere/traces', '/v1/metrics']));
  const resource = receiver.metrics().find((m) => m.name === 'mcp.server.operation.duration')!.resource;
  expect(resource).toMatchObject({ 'service.name': 'notes-prod', 'deployment.environment.name': 'staging', 'process.runtime.name': 'nodejs' });
  // The default detectors leave the command line out: it may hold secrets.
  expect(resource['process.command_args']).toBeUndefined();
});

it('has no tracer provider with OTEL_TRACES_EXPORTER=none', async () => {
  const { report, stderr } = await runToEnd({ OTEL_TRACES_EXPORTER: 'none' }, { otlp: true });
  // The SDK warns that it leaves tracing off; below OTEL_LOG_LEVEL's default (error), as asked for on purpose.
  expect(stderr).toBe('');
  expect(report).toMatchObject({ tracerProvider: false, meterProvider: true, globals: { tracing: false } });
  expect(receiver.requests.filter((r) => r.path === '/v1/traces')).toEqual([]);
  expect(receiver.metrics().some((m) => m.name === 'mcp.server.operation.duration')).toBe(true);
});

it('has no meter provider with OTEL_METRICS_EXPORTER=none', async () => {
  const { report } = await runToEnd({ OTEL_METRICS_EXPORTER: 'none' }, { otlp: true });
  expect(report).toMatchObject({ tracerProvider: true, meterProvider: false });
  expect(receiver.requests.filter((r) => r.path === '/v1/metrics')).toEqual([]);
  expect(receiver.spans().some((s) => s.name === 'tools/call echo')).toBe(true);
});

it('puts the Prometheus reader on the SDK MeterProvider: the same point goes over OTLP and into the scrape', async () => {
  const { report, stderr } = await runToEnd({}, { otlp: true, prometheus: true, serviceName: 'notes' });
  // Scraped right after the start: target_info waited for the host detector instead of complaining.
  expect(stderr).toBe('');
  expect(report).toMatchObject({ meterProvider: true, globalMeterProvider: true, contentType: 'text/plain; version=0.0.4; charset=utf-8' });
  expect(report.scrape).toMatch(
    /^mcp_server_operation_duration_seconds_bucket\{mcp_method_name="tools\/call",gen_ai_tool_name="echo",otel_scope_name="@mcpx\/core",otel_scope_version="0\.1\.0",le="0\.5"\} 1$/m,
  );
  expect(report.scrape).toMatch(/^target_info\{.*service_name="notes"/m);
  expect(receiver.metrics().find((m) => m.name === 'mcp.server.operation.duration')?.points[0]?.count).toBe(1);
});

it('with OTEL_METRICS_EXPORTER=none and prometheus, metrics are scraped only', async () => {
  const { report } = await runToEnd({ OTEL_METRICS_EXPORTER: 'none' }, { otlp: true, prometheus: true });
  expect(report).toMatchObject({ meterProvider: true, globalMeterProvider: true });
  expect(report.scrape).toMatch(/^mcp_server_operation_duration_seconds_count\{.*\} 1$/m);
  expect(receiver.requests.filter((r) => r.path === '/v1/metrics')).toEqual([]);
  expect(receiver.spans().some((s) => s.name === 'tools/call echo')).toBe(true);
});

it('unregisters what it registered on shutdown (twice is fine), so a second start in the process works', async () => {
  const { report } = await runToEnd({}, { otlp: true, restart: true });
  expect(report.afterShutdown).toEqual({ tracing: false, propagating: false });
  expect(report.globals).toEqual({ tracing: true, propagating: true });
  expect(receiver.spans().filter((s) => s.name === 'tools/call echo')).toHaveLength(1);
});

it('writes diagnostics to stderr, never stdout, even at OTEL_LOG_LEVEL=debug', async () => {
  const { stderr } = await runToEnd({ OTEL_LOG_LEVEL: 'debug' }, { otlp: true, prometheus: true });
  expect(stderr).toMatch(/^@mcpx\/otel debug: /m);
  expect(receiver.spans().some((s) => s.name === 'tools/call echo')).toBe(true);
});
