import { fileURLToPath } from 'node:url';

/**
 * The file of the code that called `callee` (a decorator factory, run where a class is declared):
 * what a relative path given to it is resolved against, so it does not depend on the working
 * directory. Undefined when the stack says no file (code evaluated from a string).
 */
export function callerFile(callee: Function): string | undefined {
  const holder: { stack?: unknown } = {};
  const stackTraceLimit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 5;
    Error.captureStackTrace(holder, callee);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  if (typeof holder.stack !== 'string') return undefined;
  // V8's frames: "    at fn (file:line:col)" or "    at file:line:col"; the first is the caller's.
  for (const line of holder.stack.split('\n').slice(1)) {
    const file = /\((.+?):\d+:\d+\)$/.exec(line)?.[1] ?? /^\s*at (.+?):\d+:\d+$/.exec(line)?.[1];
    if (!file || file.startsWith('node:')) continue;
    return file.startsWith('file:') ? fileURLToPath(file) : file;
  }
  return undefined;
}
