import type * as OtelApi from '@opentelemetry/api';

/**
 * @opentelemetry/api, loaded the first time something asks for it: 44 modules and some 25 ms of a
 * server's start that a server without OpenTelemetry never needs.
 */
let api: typeof OtelApi | undefined;

export function otelApi(): typeof OtelApi {
  return (api ??= require('@opentelemetry/api') as typeof OtelApi);
}

/** Where every 1.x copy of the API keeps what was registered with it (tracer, meter, propagator, context manager). */
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether the API can hold anything but its no-ops: it was loaded here, or something (an SDK, an
 * instrumentation, another copy of the API) registered with its global. While false, telemetry has
 * nothing to record with and the API stays unloaded.
 */
export function otelInUse(): boolean {
  return api !== undefined || (globalThis as Record<symbol, unknown>)[GLOBAL_KEY] !== undefined;
}
