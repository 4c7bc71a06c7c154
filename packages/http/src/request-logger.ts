import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { boundBy, childLogger, extendLogger } from '@mcpx/core/transport';

/**
 * The logger the engine writes a POSTed message's lines with: the request's own (its `reqId`)
 * plus the caller's address. Undefined when info is off: the engine then writes no line. Marks
 * the exchange as logged by the engine, so that its HTTP line is debug.
 */
export function requestLogger(request: FastifyRequest): Logger | undefined {
  request.mcpLogged = true;
  const log = request.log;
  if (!isPino(log) || !log.isLevelEnabled('info')) return undefined;
  return hasAddress(log) ? log : extendLogger(log, { remoteAddress: request.ip });
}

/**
 * A request's own logger for `listen`'s Fastify, made with `childLogger` so that what the engine
 * adds to it (a trace's ids, `ctx.log`'s request id) goes into one child of the server's logger,
 * not a child of this one. Unless a proxy is trusted the caller's address is the socket's, and is
 * bound here in the same child.
 */
export function requestChild(parent: Logger, bindings: Record<string, unknown>, options: object, remoteAddress: string | undefined | false): Logger {
  return childLogger(parent, remoteAddress === false ? bindings : { ...bindings, remoteAddress }, options);
}

/** Whether the request's logger has its caller's address bound already (its lines need no field for it). */
export function hasAddress(log: unknown): boolean {
  return boundBy(log, 'remoteAddress') !== undefined;
}

/** Fastify's logger is pino when the app has one; without, a stand-in with only the level methods. */
export function isPino(log: unknown): log is Logger {
  return typeof (log as Partial<Logger> | undefined)?.isLevelEnabled === 'function';
}
