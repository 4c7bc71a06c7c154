/** A failure the user can fix (bad flag, missing file, no server...): one line on stderr, exit 2. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
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
