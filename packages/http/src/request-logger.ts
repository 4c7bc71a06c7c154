import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/**
 * The logger the engine writes a POSTed message's lines with: the request's own (its `reqId`)
 * plus the caller's address. Undefined when info is off: the engine then writes no line. Marks
 * the exchange as logged by the engine, so that its HTTP line is debug.
 */
export function requestLogger(request: FastifyRequest): Logger | undefined {
  request.mcpLogged = true;
  const log = request.log;
  if (!isPino(log) || !log.isLevelEnabled('info')) return undefined;
  return hasAddress(log) ? log : log.child({ remoteAddress: request.ip });
}

/** Request loggers made with the caller's address already bound (see addressedChild). */
const ADDRESSED = new WeakSet<object>();

/**
 * A request's own logger with its caller's address bound in the same child: a child of a child
 * costs V8 far more than a child (the first child becomes a prototype), about 7 µs a request.
 * For `listen`'s Fastify, which knows the address is the socket's (no proxy is trusted).
 */
export function addressedChild(parent: Logger, bindings: Record<string, unknown>, options: object, remoteAddress: string | undefined): Logger {
  const child = parent.child({ ...bindings, remoteAddress }, options);
  ADDRESSED.add(child);
  return child;
}

/** Whether the request's logger has its caller's address bound already (its lines need no field for it). */
export function hasAddress(log: unknown): boolean {
  return ADDRESSED.has(log as object);
}

/** Fastify's logger is pino when the app has one; without, a stand-in with only the level methods. */
export function isPino(log: unknown): log is Logger {
  return typeof (log as Partial<Logger> | undefined)?.isLevelEnabled === 'function';
}
