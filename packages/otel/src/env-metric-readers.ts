import { diag } from '@opentelemetry/api';
import { OTLPMetricExporter as GrpcMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { ConsoleMetricExporter, PeriodicExportingMetricReader, type IMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';

/**
 * The metric readers OTEL_METRICS_EXPORTER names (otlp by default, none for none), beside a
 * Prometheus reader mcpx serves itself: `prometheus` in the list adds nothing, as /metrics serves it.
 * NodeSDK builds these only when it is given no reader; with the Prometheus reader given, they are
 * built here, from the same OTEL_* variables.
 */
export function metricReadersFromEnv(env: NodeJS.ProcessEnv = process.env): IMetricReader[] {
  const names = new Set(
    (env.OTEL_METRICS_EXPORTER ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
  if (names.size === 0) names.add('otlp');
  if (names.has('none')) return [];
  const readers: IMetricReader[] = [];
  for (const name of names) {
    if (name === 'otlp') readers.push(periodicReader(otlpMetricExporter(env), env));
    else if (name === 'console') readers.push(periodicReader(new ConsoleMetricExporter(), env));
    else if (name !== 'prometheus') diag.warn(`Unsupported OTEL_METRICS_EXPORTER value: "${name}". Supported values are: otlp, console, prometheus, none.`);
  }
  return readers;
}

/** The OTLP exporter of the protocol the variables name; each reads its endpoint, headers and temporality from them itself. */
function otlpMetricExporter(env: NodeJS.ProcessEnv): PushMetricExporter {
  const protocol = (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  switch (protocol) {
    case 'grpc':
      return new GrpcMetricExporter();
    case 'http/json':
      return new JsonMetricExporter();
    case 'http/protobuf':
      return new ProtobufMetricExporter();
    default:
      diag.warn(`Unsupported OTLP metrics protocol: "${protocol}". Using http/protobuf.`);
      return new ProtobufMetricExporter();
  }
}

function periodicReader(exporter: PushMetricExporter, env: NodeJS.ProcessEnv): PeriodicExportingMetricReader {
  const interval = millis(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000);
  // The timeout may not exceed the interval.
  const timeout = Math.min(millis(env.OTEL_METRIC_EXPORT_TIMEOUT, 30_000), interval);
  return new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval, exportTimeoutMillis: timeout });
}

function millis(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(n) && n > 0 ? n : fallback;
}
