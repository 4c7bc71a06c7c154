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
  return isPino(log) && log.isLevelEnabled('info') ? log.child({ remoteAddress: request.ip }) : undefined;
}

/** Fastify's logger is pino when the app has one; without, a stand-in with only the level methods. */
export function isPino(log: unknown): log is Logger {
  return typeof (log as Partial<Logger> | undefined)?.isLevelEnabled === 'function';
}
