import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Takes every span and drops it: what remains of the cost is recording them, batching included. */
class DroppingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Aggregates every metric point; nothing collects them, as a Prometheus server that never scrapes. */
class IdleReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * `--otel`: registers the OpenTelemetry SDK globally, sampling every span, so the benchmark shows
 * what mcpx's instrumentation costs when it is on (without --otel no SDK is registered, and the
 * instrumentation returns at once).
 */
export function traceEverything(): void {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new DroppingExporter(), { maxQueueSize: 8192, maxExportBatchSize: 512 })] });
  trace.setGlobalTracerProvider(tracerProvider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new IdleReader()] }));
}
