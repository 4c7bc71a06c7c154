import pino, { type Logger } from 'pino';
import type { LogLevel } from './args';

export interface LoggerOptions {
  name: string;
  level: LogLevel;
  /** stdio mode keeps stdout for the protocol: logs go to stderr. */
  stream: 'stdout' | 'stderr';
  env?: NodeJS.ProcessEnv;
}

/** pino JSON when the output is not a terminal or CI is set; pino-pretty colour lines on a terminal. */
export function createLogger({ name, level, stream, env = process.env }: LoggerOptions): Logger {
  const fd = stream === 'stdout' ? 1 : 2;
  const tty = Boolean((stream === 'stdout' ? process.stdout : process.stderr).isTTY);
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI.toLowerCase() !== 'false';
  if (tty && !ci) {
    const pretty = loadPretty();
    if (pretty) return pino({ name, level }, pretty({ colorize: true, destination: fd, sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
  }
  return pino({ name, level }, pino.destination({ fd, sync: true }));
}

type PrettyFactory = (options: Record<string, unknown>) => NodeJS.WritableStream;

function loadPretty(): PrettyFactory | undefined {
  try {
    const mod = require('pino-pretty') as PrettyFactory | { default: PrettyFactory };
    return typeof mod === 'function' ? mod : mod.default;
  } catch {
    return undefined;
  }
}
