import type { McpEngine } from './engine';
import type { TelemetryProviders } from '../telemetry/telemetry';

/** What @mcpx/otel's startOtel returns (the package is an optional peer: its types are restated here). */
export interface OtelHandle extends TelemetryProviders {
  /** Set with `prometheus`: the text exposition of the metrics, on demand. */
  prometheus?: { contentType: string; scrape(): Promise<string> };
  /** Flushes and stops everything it started. */
  shutdown(): Promise<void>;
}

type StartOtel = (options: { otlp?: boolean; prometheus?: boolean; serviceName?: string; serviceVersion?: string }) => Promise<OtelHandle>;

/**
 * Starts OpenTelemetry for one engine through @mcpx/otel, an optional peer loaded only here (a
 * server without it never pays for it): OTLP export configured by the `OTEL_*` variables when
 * `otlp`, a Prometheus reader when `prometheus`. The engine records through the handle's providers
 * from then on. `askedBy` names the options that asked, for the error when the package is missing.
 */
export async function startOtelFor(engine: McpEngine, options: { otlp: boolean; prometheus?: boolean }, askedBy: string): Promise<OtelHandle> {
  let startOtel: StartOtel;
  try {
    ({ startOtel } = (await import('@mcpx/otel' as string)) as { startOtel: StartOtel });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((err as Error).message).includes('@mcpx/otel')) {
      throw new Error(`OpenTelemetry (${askedBy}) needs the @mcpx/otel package: npm install @mcpx/otel`, { cause: err });
    }
    throw err;
  }
  const handle = await startOtel({ ...options, serviceName: engine.serverInfo.name, serviceVersion: engine.serverInfo.version });
  // Only the providers it made: the others stay the global ones (an SDK of the application's own).
  const providers: TelemetryProviders = {};
  if (handle.tracerProvider) providers.tracerProvider = handle.tracerProvider;
  if (handle.meterProvider) providers.meterProvider = handle.meterProvider;
  engine.telemetry.use(providers);
  return handle;
}
