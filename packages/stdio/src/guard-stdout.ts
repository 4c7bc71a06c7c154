/**
 * Over stdio, stdout is the protocol stream: one stray line (a `console.log` in a module's top
 * level, a library's banner) and the client reads garbage. `guardStdout()` sends everything written
 * to process.stdout to stderr from the moment it runs, and keeps stdout's own write for the
 * protocol: serveStdio() writes through it. Import `@mcpx/stdio/guard` first in a stdio entry, so
 * that the modules loaded after it cannot write to stdout while they load.
 */

/** Marks a process.stdout.write that sends to stderr, and keeps stdout's own (`Symbol.for`: shared by every copy of this package). */
export const REAL_WRITE = Symbol.for('mcpx.stdio.realStdoutWrite');
type StdoutWrite = typeof process.stdout.write & { [REAL_WRITE]?: typeof process.stdout.write };

/** Points process.stdout.write at stderr; returns stdout's own write and how to undo it. */
export function redirectStdout(): { realWrite: typeof process.stdout.write; restore: () => void } {
  const stdout = process.stdout;
  const hadOwn = Object.prototype.hasOwnProperty.call(stdout, 'write');
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be put back, and called with its receiver
  const previous = stdout.write as StdoutWrite;
  const realWrite = previous[REAL_WRITE] ?? previous;
  const toStderr = function (this: unknown, ...args: unknown[]) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its receiver
    return Reflect.apply(process.stderr.write, process.stderr, args) as boolean;
  } as StdoutWrite;
  toStderr[REAL_WRITE] = realWrite;
  stdout.write = toStderr;
  return {
    realWrite,
    restore: () => {
      if (stdout.write !== toStderr) return; // replaced again since: leave that alone
      if (hadOwn) stdout.write = previous;
      else delete (stdout as { write?: unknown }).write;
    },
  };
}

/** Sends process.stdout's writes to stderr for the rest of the process (once; later calls do nothing). */
export function guardStdout(): void {
  if ((process.stdout.write as StdoutWrite)[REAL_WRITE]) return;
  redirectStdout();
}
