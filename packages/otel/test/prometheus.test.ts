import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { startOtel, type OtelHandle } from '../src';
import { unitWords } from '../src/prometheus-names';

/** startOtel({ prometheus: true }) without OTLP, in this process: the exporter's own reader, scraped. */

let handle: OtelHandle | undefined;

afterEach(async () => {
  await handle?.shutdown();
  handle = undefined;
  delete process.env.OTEL_SDK_DISABLED;
  delete process.env.OTEL_SERVICE_NAME;
});

/** The instruments mcpx records into, on the global meter provider unless given one. */
function recordAll(provider = metrics.getMeterProvider()): void {
  const meter = provider.getMeter('@mcpx/core', '0.1.0');
  meter
    .createHistogram('mcp.server.operation.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 0.5, 1] } })
    .record(0.25, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' });
  meter.createObservableGauge('mcpx.session.active', { unit: '{session}' }).addCallback((r) => r.observe(3));
  meter.createObservableGauge('mcpx.event_store.size', { unit: 'By' }).addCallback((r) => r.observe(512));
  meter.createCounter('mcpx.refusal.count', { unit: '{refusal}' }).add(2, { 'mcpx.refusal.reason': 'auth', 'http.response.status_code': 401 });
}

const isNoopMeterProvider = () => metrics.getMeter('a').createCounter('c') === metrics.getMeter('b').createCounter('c');

it('serves a MeterProvider of its own, registered globally, as Prometheus text with the units in the names', async () => {
  handle = await startOtel({ prometheus: true, serviceName: 'notes', serviceVersion: '1.2.3' });
  expect(handle.tracerProvider).toBeUndefined();
  expect(handle.meterProvider).toBe(metrics.getMeterProvider());
  expect(handle.prometheus!.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  recordAll();
  const text = await handle.prometheus!.scrape();
  expect(text).toContain('target_info{service_name="notes",service_version="1.2.3",');
  expect(text).toContain('# TYPE mcp_server_operation_duration_seconds histogram');
  expect(text).toContain('# UNIT mcp_server_operation_duration_seconds seconds');
  const labels = 'mcp_method_name="tools/call",gen_ai_tool_name="echo",otel_scope_name="@mcpx/core",otel_scope_version="0.1.0"';
  expect(text).toContain(`mcp_server_operation_duration_seconds_bucket{${labels},le="0.1"} 0\n`);
  expect(text).toContain(`mcp_server_operation_duration_seconds_bucket{${labels},le="0.5"} 1\n`);
  expect(text).toContain(`mcp_server_operation_duration_seconds_bucket{${labels},le="+Inf"} 1\n`);
  expect(text).toContain(`mcp_server_operation_duration_seconds_count{${labels}} 1\n`);
  expect(text).toContain(`mcp_server_operation_duration_seconds_sum{${labels}} 0.25\n`);
  expect(text).toContain('mcpx_session_active{otel_scope_name="@mcpx/core",otel_scope_version="0.1.0"} 3\n');
  expect(text).not.toContain('# UNIT mcpx_session_active');
  expect(text).toContain('# TYPE mcpx_event_store_size_bytes gauge');
  expect(text).toMatch(/^mcpx_event_store_size_bytes\{.*\} 512$/m);
  expect(text).toContain('# TYPE mcpx_refusal_count_total counter');
  expect(text).toMatch(/^mcpx_refusal_count_total\{mcpx_refusal_reason="auth",http_response_status_code="401",.*\} 2$/m);

  await handle.shutdown();
  await handle.shutdown();
  expect(isNoopMeterProvider()).toBe(true);
  await expect(handle.prometheus!.scrape()).rejects.toThrow();
});

it('names the service from OTEL_SERVICE_NAME first', async () => {
  process.env.OTEL_SERVICE_NAME = 'notes-prod';
  handle = await startOtel({ prometheus: true, serviceName: 'notes' });
  expect(await handle.prometheus!.scrape()).toContain('target_info{service_name="notes-prod",');
});

it('keeps its MeterProvider to itself when another is registered globally', async () => {
  const theirs = new MeterProvider();
  metrics.setGlobalMeterProvider(theirs);
  try {
    handle = await startOtel({ prometheus: true });
    expect(handle.meterProvider).not.toBe(theirs);
    expect(metrics.getMeterProvider()).toBe(theirs);
    recordAll(); // into theirs: not scraped
    handle.meterProvider!.getMeter('@mcpx/core').createCounter('mcpx.refusal.count').add(1);
    const text = await handle.prometheus!.scrape();
    expect(text).toMatch(/^mcpx_refusal_count_total\{.*\} 1$/m);
    expect(text).not.toContain('mcp_server_operation_duration');
    await handle.shutdown();
    expect(metrics.getMeterProvider()).toBe(theirs);
  } finally {
    metrics.disable();
    await theirs.shutdown();
  }
});

it('starts no SDK with OTEL_SDK_DISABLED=true; the scrape still works', async () => {
  process.env.OTEL_SDK_DISABLED = 'true';
  handle = await startOtel({ otlp: true, prometheus: true });
  expect(handle.tracerProvider).toBeUndefined();
  expect(trace.getTracer('x').startSpan('s').isRecording()).toBe(false);
  recordAll();
  expect(await handle.prometheus!.scrape()).toContain('mcp_server_operation_duration_seconds_count{');
});

it('starts nothing when asked for nothing', async () => {
  handle = await startOtel({});
  expect([handle.tracerProvider, handle.meterProvider, handle.prometheus]).toEqual([undefined, undefined, undefined]);
  expect(isNoopMeterProvider()).toBe(true);
});

it('refuses to start the SDK over one already registered, naming the way out', async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider());
  try {
    await expect(startOtel({ otlp: true })).rejects.toThrow(
      'OpenTelemetry is already set up in this process (a global tracer or meter provider is registered): mcpx records through it as it is, so leave otel off (--otel, MCPX_OTEL)',
    );
  } finally {
    trace.disable();
  }
});

it.each([
  ['s', 'seconds'],
  ['ms', 'milliseconds'],
  ['By', 'bytes'],
  ['{session}', ''],
  ['1', ''],
  ['', ''],
  ['By/s', 'bytes_per_second'],
  ['{request}/s', 'per_second'],
])('spells the unit %j as %j in a Prometheus name', (unit, words) => {
  expect(unitWords(unit)).toBe(words);
});
