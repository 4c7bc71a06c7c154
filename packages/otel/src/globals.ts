import { ProxyTracerProvider, createNoopMeter, metrics, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api';

/** What the global tracer provider delegates to while no SDK has registered one. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NOOP_METER = createNoopMeter();

/** The globally registered tracer provider; undefined while none is (the API's no-op). */
export function registeredTracerProvider(): TracerProvider | undefined {
  const global = trace.getTracerProvider();
  const delegate = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  return delegate === NOOP_TRACER_PROVIDER ? undefined : delegate;
}

/** The globally registered meter provider; undefined while none is (the API's no-op hands out the no-op meter). */
export function registeredMeterProvider(): MeterProvider | undefined {
  const global = metrics.getMeterProvider();
  return global.getMeter('@mcpx/otel') === NOOP_METER ? undefined : global;
}
