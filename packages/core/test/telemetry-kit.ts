/**
 * The OpenTelemetry SDK's in-memory pieces the telemetry tests read: a tracer provider whose
 * spans land in an InMemorySpanExporter, a meter provider read on demand, and the W3C
 * propagators, all handed to an engine with `engine.telemetry.use(...)` (no globals). Shared by
 * the telemetry tests of core, http and stdio. Not a test file itself (jest only runs *.test.ts).
 */
import { SpanKind, type Attributes, type HrTime } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { DataPointType, MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import type { TelemetryProviders } from '../src/exports/telemetry';

/** A reader that collects only when a test asks. */
class OnDemandReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export { SpanKind };

export interface OtelKit {
  readonly providers: Required<TelemetryProviders>;
  readonly tracerProvider: BasicTracerProvider;
  /** Every span ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The one ended span named `name` (fails when there are none or several). */
  span(name: string): ReadableSpan;
  /** Waits until a span named `name` has ended (spans end a little after the response leaves). */
  waitForSpan(name: string, count?: number): Promise<ReadableSpan>;
  /** Forgets the spans ended so far. */
  reset(): void;
  /** Collects the metrics now: every metric by name. */
  collect(): Promise<Map<string, MetricData>>;
  /** The data points of a metric, as collected now; [] when it has none. */
  points(name: string): Promise<DataPoint<unknown>[]>;
  shutdown(): Promise<void>;
}

export function otelKit(): OtelKit {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().filter((s) => s.name === name);
  const collect = async () => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    const out = new Map<string, MetricData>();
    for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) out.set(metric.descriptor.name, metric);
    return out;
  };
  return {
    providers: { tracerProvider, meterProvider, propagator },
    tracerProvider,
    spans,
    span(name) {
      const found = named(name);
      if (found.length !== 1)
        throw new Error(
          `expected one span named ${JSON.stringify(name)}, found ${found.length}; ended: ${spans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      return found[0]!;
    },
    async waitForSpan(name, count = 1) {
      await waitUntil(
        () => named(name).length >= count,
        `${count} span(s) named ${JSON.stringify(name)} (ended: ${spans()
          .map((s) => s.name)
          .join(', ')})`,
      );
      return named(name)[count - 1]!;
    },
    reset: () => exporter.reset(),
    collect,
    async points(name) {
      return ((await collect()).get(name)?.dataPoints ?? []) as DataPoint<unknown>[];
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** Polls `condition` until it holds, failing after `timeoutMs` with `what`. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The span's parent span id, or undefined for a root span. */
export function parentIdOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Whether `child` is a direct child of `parent` (same trace, parent span id). */
export function isChildOf(child: ReadableSpan, parent: ReadableSpan): boolean {
  return child.spanContext().traceId === parent.spanContext().traceId && parentIdOf(child) === parent.spanContext().spanId;
}

/** The histogram points whose attributes include `match`. */
export function histogramPoints(points: DataPoint<unknown>[], match: Attributes): DataPoint<Histogram>[] {
  return points.filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v)) as DataPoint<Histogram>[];
}

/** A data point's value as a number (gauges and sums). */
export function valueOf(points: DataPoint<unknown>[], match: Attributes = {}): number | undefined {
  const point = points.find((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v));
  return point === undefined ? undefined : (point.value as number);
}

/** Nanoseconds of an HrTime, as a bigint (to order span ends). */
export function nanos(time: HrTime): bigint {
  return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
}

/** A W3C traceparent of fresh random ids, sampled; its trace and span id. */
export function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () =>
      Math.floor(Math.random() * 256)
        .toString(16)
        .padStart(2, '0'),
    ).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

export { DataPointType };
