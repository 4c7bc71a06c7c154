import { format } from 'node:util';
import { DiagLogLevel, diag, type DiagLogger } from '@opentelemetry/api';

/** The SDK's own messages when OTEL_LOG_LEVEL is unset: errors, such as failed exports (its warnings are mostly about settings chosen on purpose, like an exporter of `none`). */
const DEFAULT_LEVEL = DiagLogLevel.ERROR;

function line(level: string): (message: string, ...args: unknown[]) => void {
  return (message, ...args) => {
    process.stderr.write(`@mcpx/otel ${level}: ${format(message, ...args)}\n`);
  };
}

/** OTEL_LOG_LEVEL as the SDK reads it (NONE, ERROR, WARN, INFO, DEBUG, VERBOSE, ALL; any case). */
export function diagLevelOf(raw: string | undefined): DiagLogLevel {
  const name = raw?.trim().toUpperCase();
  if (!name) return DEFAULT_LEVEL;
  const level = (DiagLogLevel as unknown as Record<string, DiagLogLevel | undefined>)[name];
  return typeof level === 'number' ? level : DEFAULT_LEVEL;
}

/**
 * Routes the SDK's diagnostics to stderr at OTEL_LOG_LEVEL (default error). The SDK's own console
 * logger writes info and debug to stdout, which a stdio server uses for the protocol.
 */
export function useStderrDiag(env: NodeJS.ProcessEnv = process.env): void {
  const logger: DiagLogger = { error: line('error'), warn: line('warn'), info: line('info'), debug: line('debug'), verbose: line('verbose') };
  diag.setLogger(logger, { logLevel: diagLevelOf(env.OTEL_LOG_LEVEL), suppressOverrideMessage: true });
}

/** Runs `fn` with OTEL_LOG_LEVEL hidden, so NodeSDK's constructor keeps the stderr logger instead of installing its console one. */
export function withoutLogLevel<T>(fn: () => T): T {
  const saved = process.env.OTEL_LOG_LEVEL;
  if (saved === undefined) return fn();
  delete process.env.OTEL_LOG_LEVEL;
  try {
    return fn();
  } finally {
    process.env.OTEL_LOG_LEVEL = saved;
  }
}
