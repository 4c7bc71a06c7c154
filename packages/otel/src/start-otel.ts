import { context, diag, metrics, propagation, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import { detectResources, envDetector } from '@opentelemetry/resources';
import { MeterProvider as SdkMeterProvider } from '@opentelemetry/sdk-metrics';
import { registeredMeterProvider, registeredTracerProvider } from './globals';
import { prometheusReader, type PrometheusScrape } from './prometheus';
import { baseResource } from './resource';
import { useStderrDiag } from './stderr-diag';

export interface OtelOptions {
  /** Start the OpenTelemetry Node SDK: traces and metrics over OTLP, configured by the OTEL_* variables. */
  otlp?: boolean;
  /** A Prometheus reader on the same MeterProvider, for a `/metrics` endpoint (see `prometheus.scrape()`). */
  prometheus?: boolean;
  /** `service.name` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names it. */
  serviceName?: string;
  /** `service.version`. */
  serviceVersion?: string;
}

export interface OtelHandle {
  /** The SDK's tracer provider; undefined without `otlp` or with OTEL_TRACES_EXPORTER=none. */
  tracerProvider?: TracerProvider;
  /** The MeterProvider the metrics go to; undefined when no reader would read them. */
  meterProvider?: MeterProvider;
  /** With `prometheus`: the metrics as Prometheus text, and the content type to serve it with. */
  prometheus?: PrometheusScrape;
  /** Exports what is pending, stops the exporters and unregisters the globals registered here; safe to call again. */
  shutdown(): Promise<void>;
}

const ALREADY_SET_UP =
  'OpenTelemetry is already set up in this process (a global tracer or meter provider is registered): mcpx records through it as it is, so leave otel off (--otel, MCPX_OTEL)';

function handle(parts: Omit<OtelHandle, 'shutdown'>, stop: () => Promise<void>): OtelHandle {
  let stopping: Promise<void> | undefined;
  return {
    ...parts,
    // A collector that is down must not fail the server's own shutdown: the SDK reports it on stderr.
    shutdown: () => (stopping ??= stop().catch((err: unknown) => diag.error('shutting OpenTelemetry down failed', err))),
  };
}

/**
 * Starts what mcpx's observability needs, writing nothing to stdout (diagnostics go to stderr at
 * OTEL_LOG_LEVEL): with `otlp`, the OpenTelemetry Node SDK; with `prometheus`, a Prometheus reader on
 * the SDK's MeterProvider, or without `otlp` on a MeterProvider of its own (registered globally when
 * no other is). OTEL_SDK_DISABLED=true leaves the SDK off; `prometheus` still works.
 */
export async function startOtel(options: OtelOptions = {}): Promise<OtelHandle> {
  useStderrDiag();
  const resource = baseResource(options.serviceName, options.serviceVersion);
  const prometheus = options.prometheus ? prometheusReader() : undefined;
  const sdkDisabled = process.env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  if (options.otlp && !sdkDisabled) {
    if (registeredTracerProvider() || registeredMeterProvider()) throw new Error(ALREADY_SET_UP);
    // Loaded only here: the SDK and its exporters take a while to load, and /metrics alone needs none of them.
    const { startNodeSdk } = await import('./otlp-sdk');
    const sdk = startNodeSdk(resource, prometheus?.reader);
    // Nothing was registered before: what is registered now is the SDK's.
    const tracerProvider = registeredTracerProvider();
    const meterProvider = registeredMeterProvider();
    return handle({ tracerProvider, meterProvider, prometheus: prometheus?.scrape }, async () => {
      try {
        await sdk.shutdown();
      } finally {
        // A later startOtel (a restarted server in the same process) registers afresh.
        if (tracerProvider && registeredTracerProvider() === tracerProvider) trace.disable();
        if (meterProvider && metrics.getMeterProvider() === meterProvider) metrics.disable();
        propagation.disable();
        context.disable();
      }
    });
  }
  if (options.otlp) diag.info('OTEL_SDK_DISABLED is true: nothing is exported over OTLP');
  if (!prometheus) return handle({}, async () => {});
  const meterProvider = new SdkMeterProvider({ resource: resource.merge(detectResources({ detectors: [envDetector] })), readers: [prometheus.reader] });
  const global = !registeredMeterProvider() && metrics.setGlobalMeterProvider(meterProvider);
  return handle({ meterProvider, prometheus: prometheus.scrape }, async () => {
    try {
      await meterProvider.shutdown();
    } finally {
      if (global && metrics.getMeterProvider() === meterProvider) metrics.disable();
    }
  });
}
