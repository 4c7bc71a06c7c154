import pino, { type Logger } from 'pino';

type PrettyFactory = (options: Record<string, unknown>) => NodeJS.WritableStream;

/**
 * The server's log: coloured lines on a terminal, pino JSON lines anywhere else (a pipe, a file,
 * a container, CI), where log tools read them. HTTP logs to stdout; stdio logs to stderr, because
 * its stdout carries the protocol. LOG_LEVEL sets the level (default info).
 */
export function createLogger(name: string, stream: 'stdout' | 'stderr'): Logger {
  const level = process.env.LOG_LEVEL || 'info';
  const fd = stream === 'stdout' ? 1 : 2;
  const ci = Boolean(process.env.CI) && !['0', 'false'].includes(process.env.CI!.toLowerCase());
  const terminal = Boolean((stream === 'stdout' ? process.stdout : process.stderr).isTTY) && !ci;
  const pretty = terminal ? loadPretty() : undefined;
  if (pretty) return pino({ name, level }, pretty({ colorize: true, destination: fd, sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
  return pino({ name, level }, pino.destination({ fd, sync: true }));
}

function loadPretty(): PrettyFactory | undefined {
  try {
    return require('pino-pretty') as PrettyFactory;
  } catch {
    // pino-pretty is optional (images install without it): JSON lines then.
    return undefined;
  }
}
