// The light entry of @mcpx/core: usage errors must not pay for loading the framework.
import { McpxError, isMcpxError, type McpxErrorCode } from '@mcpx/core/errors';

/** The codes a CliError carries. */
export type CliErrorCode = Extract<McpxErrorCode, 'MCPX_CLI_USAGE' | 'MCPX_CLI_OPTION_UNKNOWN' | 'MCPX_CLI_FAILED'>;

/**
 * A failure the user can fix (bad flag, missing file, no server...): one line on stderr, exit 2;
 * exit 1 when the command could not do its work. The code follows the exit code unless given.
 */
export class CliError extends McpxError {
  declare readonly code: CliErrorCode;

  constructor(
    message: string,
    readonly exitCode = 2,
    options: { code?: CliErrorCode; cause?: unknown } = {},
  ) {
    super(options.code ?? (exitCode === 1 ? 'MCPX_CLI_FAILED' : 'MCPX_CLI_USAGE'), message, options);
  }
}

/**
 * A server that cannot be defined as written (the scanner's errors). By code, not class: the
 * entry loads its own @mcpx/core, which may be another copy than the CLI's.
 */
export function isDefinitionError(err: unknown): boolean {
  return isMcpxError(err, 'MCPX_DEFINITION') || isMcpxError(err, 'MCPX_URI_TEMPLATE') || isMcpxError(err, 'MCPX_ELICITATION_SCHEMA');
}

/** One line, whatever the error: never a stack trace. */
export function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}
