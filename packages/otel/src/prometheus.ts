import { diag } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { withUnitSuffixes } from './prometheus-names';

/** The Prometheus text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A scrape: the metrics of the MeterProvider the reader is on, as Prometheus text. */
export interface PrometheusScrape {
  contentType: string;
  scrape(): Promise<string>;
}

/** A Prometheus reader that serves nothing itself: the HTTP server that owns `/metrics` calls scrape(). */
export function prometheusReader(): { reader: PrometheusExporter; scrape: PrometheusScrape } {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const serializer = new PrometheusSerializer();
  return {
    reader,
    scrape: {
      contentType: PROMETHEUS_CONTENT_TYPE,
      async scrape() {
        const { resourceMetrics, errors } = await reader.collect();
        // A failing callback loses its own gauge only: the rest is still worth serving.
        if (errors.length) diag.error('metrics collection errors', ...errors);
        // The host detector reads host.id asynchronously: target_info waits for it instead of failing on a scrape right after start.
        await resourceMetrics.resource.waitForAsyncAttributes?.();
        return serializer.serialize(withUnitSuffixes(resourceMetrics));
      },
    },
  };
}
