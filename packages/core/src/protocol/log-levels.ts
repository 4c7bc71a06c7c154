import type { LoggingLevel } from './types';

/** RFC 5424 severities, least severe first, as MCP's logging utility names them. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const RANK: Record<LoggingLevel, number> = { debug: 0, info: 1, notice: 2, warning: 3, error: 4, critical: 5, alert: 6, emergency: 7 };

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  // Own properties only: "__proto__" or "toString" are not levels.
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/** Whether a message at `level` passes a session whose threshold is `threshold`. */
export function passes(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return RANK[level] >= RANK[threshold];
}

/** The pino method each MCP level is written with. */
export const PINO_METHOD: Record<LoggingLevel, 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'fatal',
  alert: 'fatal',
  emergency: 'fatal',
};
