import type { MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';

/**
 * UCUM units as Prometheus names spell them (the OpenTelemetry compatibility rules for Prometheus):
 * `mcp.server.operation.duration` in `s` is scraped as `mcp_server_operation_duration_seconds`, the
 * name dashboards for MCP servers query.
 */
const UNIT_WORDS: Record<string, string> = {
  d: 'days',
  h: 'hours',
  min: 'minutes',
  s: 'seconds',
  ms: 'milliseconds',
  us: 'microseconds',
  ns: 'nanoseconds',
  By: 'bytes',
  KiBy: 'kibibytes',
  MiBy: 'mebibytes',
  GiBy: 'gibibytes',
  KBy: 'kilobytes',
  MBy: 'megabytes',
  GBy: 'gigabytes',
  '%': 'percent',
};

/** The unit as words for a Prometheus name; '' for none, for `1`, and for annotations such as `{session}`. */
export function unitWords(unit: string): string {
  const plain = unit.replace(/\{[^}]*\}/g, '').trim();
  if (!plain || plain === '1') return '';
  const [per, by, ...rest] = plain.split('/');
  if (rest.length) return '';
  const word = (u: string) => UNIT_WORDS[u] ?? (/^[A-Za-z]+$/.test(u) ? u : '');
  if (by === undefined) return word(per!);
  const a = word(per!);
  const b = word(by).replace(/s$/, '');
  if (!b || (per && !a)) return '';
  return a ? `${a}_per_${b}` : `per_${b}`;
}

const sanitized = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, '_');

function withSuffix(metric: MetricData): MetricData {
  const words = unitWords(metric.descriptor.unit);
  const name = words && !sanitized(metric.descriptor.name).endsWith(`_${words}`) ? `${metric.descriptor.name}_${words}` : metric.descriptor.name;
  // The UNIT comment then names the unit as the metric name does (none for annotations).
  return { ...metric, descriptor: { ...metric.descriptor, name, unit: words } } as MetricData;
}

/** The collected metrics with their units in their names, for the Prometheus serializer. */
export function withUnitSuffixes(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({ ...scope, metrics: scope.metrics.map(withSuffix) })),
  };
}
