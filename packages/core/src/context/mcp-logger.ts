import type { Logger } from 'pino';
import type { LoggingLevel } from '../protocol/types';
import type { MessageChannel } from './channel';
import { PINO_METHOD, passes } from '../protocol/log-levels';

/**
 * What decides whether a line reaches the client: a legacy session's level (logging/setLevel), or
 * a modern request's own (`io.modelcontextprotocol/logLevel` in its `_meta`).
 */
export interface LogTarget {
  /** Undefined until the client asks for log notifications: nothing is sent. */
  readonly logLevel: LoggingLevel | undefined;
  /** A legacy session sends nothing before initialize; absent means ready. */
  readonly initialized?: boolean;
}

/**
 * A pino logger made on the first line its level lets through. A request's logger is a pino child
 * with its ids bound, which costs microseconds to make; most requests write no line at the level a
 * server runs at, so most never make it.
 */
export class LoggerOnDemand {
  private made?: Logger;

  constructor(
    /** A logger at the level the one made will have: asked before anything is made. */
    private readonly levels: Logger,
    private readonly make: () => Logger,
  ) {}

  /** The logger for a line at `level`; undefined when that level is off (nothing is made). */
  at(level: LoggingLevel): Logger | undefined {
    if (this.made) return this.made;
    return this.levels.isLevelEnabled(PINO_METHOD[level]) ? (this.made = this.make()) : undefined;
  }
}

/**
 * One logger for handlers: every line goes to pino (the operator's log) and, when the session's
 * level lets it through, to the client as notifications/message on the channel given.
 */
export class McpLogger {
  constructor(
    private readonly pino: Logger | LoggerOnDemand,
    private readonly target: LogTarget,
    private readonly channel: MessageChannel,
    private readonly name?: string,
    /** Added as `_meta` to each client-side line (the related task, for a task's logs). */
    private readonly meta?: Record<string, unknown>,
  ) {}

  /**
   * A logger whose lines carry this `logger` name, on both sides. In pino it is a field of each
   * line, not a child logger: a child of the request's logger (itself made for the request) costs
   * V8 several microseconds (see docs/performance.md).
   */
  child(name: string): McpLogger {
    return new McpLogger(this.pino, this.target, this.channel, name, this.meta);
  }

  log(level: LoggingLevel, message: string, data?: Record<string, unknown>): void {
    const pino = this.pino instanceof LoggerOnDemand ? this.pino.at(level) : this.pino;
    if (pino) writeToPino(pino, level, message, data, this.name);
    this.forward(level, message, data);
  }

  /** Sends the line to the client only (when the session's level lets it through). */
  forward(level: LoggingLevel, message: string, data?: Record<string, unknown>): void {
    const threshold = this.target.logLevel;
    if (threshold === undefined || this.target.initialized === false || !passes(level, threshold) || this.channel.open === false) return;
    const params: Record<string, unknown> = { level, data: data === undefined ? message : { message, ...data } };
    if (this.name !== undefined) params.logger = this.name;
    if (this.meta !== undefined) params._meta = this.meta;
    this.channel.send({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  debug(message: string, data?: Record<string, unknown>): void {
    this.log('debug', message, data);
  }
  info(message: string, data?: Record<string, unknown>): void {
    this.log('info', message, data);
  }
  notice(message: string, data?: Record<string, unknown>): void {
    this.log('notice', message, data);
  }
  warning(message: string, data?: Record<string, unknown>): void {
    this.log('warning', message, data);
  }
  error(message: string, data?: Record<string, unknown>): void {
    this.log('error', message, data);
  }
  critical(message: string, data?: Record<string, unknown>): void {
    this.log('critical', message, data);
  }
  alert(message: string, data?: Record<string, unknown>): void {
    this.log('alert', message, data);
  }
  emergency(message: string, data?: Record<string, unknown>): void {
    this.log('emergency', message, data);
  }
}

/**
 * One line to pino. `data` goes under its own key, `data`, so that its fields cannot collide with
 * the line's own (pino's `name`, `level`, `msg`, the session's bindings). An Error under `data.err`
 * is written as the line's `err` instead, where pino's serializer keeps its message and stack.
 * `name`: a named logger's (`ctx.log.child(name)`), written as the line's `logger` field.
 */
export function writeToPino(logger: Logger, level: LoggingLevel, message: string, data?: Record<string, unknown>, name?: string): void {
  const method = PINO_METHOD[level];
  if (data === undefined) {
    if (name === undefined) logger[method](message);
    else logger[method]({ logger: name }, message);
    return;
  }
  let line: Record<string, unknown>;
  if (data.err instanceof Error) {
    const { err, ...rest } = data;
    line = Object.keys(rest).length > 0 ? { err, data: rest } : { err };
  } else line = { data };
  logger[method](name === undefined ? line : { logger: name, ...line }, message);
}
