import type { Context, Link, TextMapGetter, TextMapPropagator, TextMapSetter } from '@opentelemetry/api';
import type { RequestOrigin } from './origin';
import { otelApi } from './otel-api';

/**
 * Trace context carried by a message's `_meta` (`traceparent`, `tracestate`, `baggage`, unprefixed
 * as 2026-07-28 and the MCP semantic conventions say), read and written with the configured
 * propagators (the global ones unless telemetry was given its own).
 */

const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** The parent of a server span and the contexts it links: see parentOf. */
export interface SpanParent {
  readonly context: Context;
  readonly links?: Link[];
}

/**
 * The parent of the span of a message from the client. As the conventions say: the context its
 * `_meta` carries, with the ambient one (a span of HTTP instrumentation, else the HTTP headers'
 * trace context) linked; without one in `_meta`, the ambient context is the parent.
 */
export function parentOf(meta: Record<string, unknown> | undefined, origin: RequestOrigin | undefined, given?: TextMapPropagator): SpanParent {
  const api = otelApi();
  const { trace, isSpanContextValid } = api;
  const propagator = given ?? api.propagation;
  const active = api.context.active();
  const ambient = trace.getSpan(active) ? active : origin?.headers ? propagator.extract(active, origin.headers, api.defaultTextMapGetter) : active;
  if (!meta || typeof meta.traceparent !== 'string') return { context: ambient };
  const fromMeta = propagator.extract(api.ROOT_CONTEXT, meta, metaGetter);
  const parent = trace.getSpanContext(fromMeta);
  if (!parent || !isSpanContextValid(parent)) return { context: ambient };
  const linked = trace.getSpanContext(ambient);
  return { context: fromMeta, links: linked && isSpanContextValid(linked) ? [{ context: linked }] : undefined };
}

/** Writes `ctx`'s trace context into `meta` (a request the server sends the client). */
export function injectInto(meta: Record<string, unknown>, ctx: Context, propagator?: TextMapPropagator): void {
  (propagator ?? otelApi().propagation).inject(ctx, meta, metaSetter);
}
