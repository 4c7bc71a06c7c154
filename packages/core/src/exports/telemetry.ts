// '@mcpx/core/telemetry': OpenTelemetry: the engine's instrumentation and the names it emits (docs/observability.md).

export { ChildSpan, RequestTrace, Telemetry, type TelemetryProviders, type TelemetrySource, type TraceScope } from '../telemetry/telemetry';
export * as semconv from '../telemetry/semconv';
