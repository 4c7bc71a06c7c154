/**
 * The process `mcpx dev` serves from. It starts as a spare: it loads the framework, the TypeScript
 * compiler and the dependencies the last good run loaded, then waits. On the supervisor's
 * `start` it runs `mcpx serve`, so a reload only pays for the user's own code.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { oneLine } from './errors';
import type { FromChild, ToChild } from './dev-messages';

// Decorators still get their metadata; a full type-check would cost seconds on every reload.
const TRANSPILE_SNIPPET = 'declare const d: any; @d class A { m(x: string): number { return x.length; } }';

function tryRequire(id: string): unknown {
  try {
    return require(id);
  } catch {
    return undefined; // the real load reports what is missing, in its own words
  }
}

/**
 * Dev loads TypeScript without a type-check (transpileModule still emits decorator metadata), and
 * compiles a snippet once now, which makes the first real compile after a change several times faster.
 */
function transpileOnly(entry: string): void {
  (require('./load-entry') as typeof import('./load-entry')).loadTypeScriptWithoutTypeCheck();
  try {
    const tsNodePath = require.resolve('ts-node', { paths: [dirname(entry), __dirname] });
    const ts = require(require.resolve('typescript', { paths: [dirname(entry), dirname(tsNodePath)] })) as {
      transpileModule(source: string, options: { compilerOptions: Record<string, unknown> }): unknown;
    };
    ts.transpileModule(TRANSPILE_SNIPPET, { compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true, module: 1 /* CommonJS */ } });
  } catch {
    // no ts-node or no compiler: loading the entry says so
  }
}

function warm(message: Extract<ToChild, { type: 'warm' }>): void {
  // The framework the project has, before anything loads it (project-modules.ts).
  (require('./project-modules') as typeof import('./project-modules')).useProjectModules(dirname(resolve(message.entry)));
  for (const id of ['./main', './serve', './load-entry', './logger', 'pino', '@mcpx/core', message.stdio ? '@mcpx/stdio' : '@mcpx/http']) tryRequire(id);
  if (process.stdout.isTTY) tryRequire('pino-pretty');
  if (/\.[cm]?tsx?$/.test(message.entry)) transpileOnly(message.entry);
  for (const file of message.modules) tryRequire(file);
}

/** Where a crash happened: the first frame outside Node and node_modules, if any. */
function origin(err: unknown): string {
  const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack.split('\n').slice(1) : [];
  const frame = stack.find((line) => /\bat\b/.test(line) && !line.includes('node:') && !line.includes(`${sep}node_modules${sep}`));
  const where = frame?.match(/\(?([^\s()]+):(\d+:\d+)\)?\s*$/);
  if (!where) return '';
  const file = isAbsolute(where[1]!) && !relative(process.cwd(), where[1]!).startsWith('..') ? relative(process.cwd(), where[1]!) : where[1]!;
  return ` (at ${file}:${where[2]})`;
}

async function start(args: string[]): Promise<void> {
  // A crash is the user's code: one line naming it, then the supervisor waits for a fix.
  process.on('uncaughtException', (err) => {
    process.stderr.write(`mcpx dev: the server crashed: ${err instanceof Error ? `${err.name}: ` : ''}${oneLine(err)}${origin(err)}\n`);
    process.exit(1);
  });
  const { main } = await import('./main');
  const code = await main(args);
  // main() has printed the one-line reason; the supervisor sees the exit.
  if (code !== 'serving') process.exit(code);
  const modules = Object.keys(require.cache).filter((file) => file.includes(`${sep}node_modules${sep}`));
  process.send?.({ type: 'ready', modules } satisfies FromChild);
}

// The supervisor gone (even killed): so is its server; no orphan keeps the port.
process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToChild) => {
  if (message.type === 'warm') warm(message);
  else if (message.type === 'start') void start(message.args);
});
