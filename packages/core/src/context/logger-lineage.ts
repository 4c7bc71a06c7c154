import type { Logger } from 'pino';

/** How a logger made by `childLogger` was made: its parent, its own bindings and the options it was given. */
interface Lineage {
  readonly parent: Logger;
  readonly bindings: Readonly<Record<string, unknown>>;
  readonly options: object | undefined;
}

const LINEAGE = new WeakMap<object, Lineage>();

/**
 * `parent.child(bindings, options)`, remembered, so that `extendLogger` can later add bindings as
 * one more child of the same parent. A pino child's prototype is its parent: a child of a child
 * made per request turns a fresh object into a prototype, which cost V8 about 7 µs a request
 * (docs/performance.md), against well under 1 µs for a child of a long-lived logger.
 */
export function childLogger(parent: Logger, bindings: Record<string, unknown>, options?: object): Logger {
  const child = options === undefined ? parent.child(bindings) : parent.child(bindings, options);
  LINEAGE.set(child, { parent, bindings, options });
  return child;
}

/**
 * `logger` with `extra` bound besides its own bindings. For a logger `childLogger` made, one child
 * of its parent with both sets (a key in both is written once, with `extra`'s value); for any
 * other, a child of it.
 */
export function extendLogger(logger: Logger, extra: Record<string, unknown>): Logger {
  const lineage = LINEAGE.get(logger);
  return lineage ? childLogger(lineage.parent, { ...lineage.bindings, ...extra }, lineage.options) : logger.child(extra);
}

/** The value `childLogger` bound under `key` for this logger (undefined for other loggers). */
export function boundBy(logger: unknown, key: string): unknown {
  return typeof logger === 'object' && logger !== null ? LINEAGE.get(logger)?.bindings[key] : undefined;
}
