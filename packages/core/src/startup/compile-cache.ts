import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { installCodeCache, type CodeCacheCounts } from './code-cache';

/**
 * The compile cache: modules loaded after `@mcpx/core` are compiled from V8 code cached on disk by
 * an earlier start of the same program, instead of from their source. Compiling is the largest part
 * of a server's start (about 80 of 290 ms to listen for the benchmark server on Node 20); with the
 * cache a later start spends a fraction of it. The first start compiles from source as it would
 * with no cache, and makes the cache after it; the second completes it (code-cache.ts says how).
 *
 * On Node 22.1 and later this is Node's own compile cache (`module.enableCompileCache`). On Node 20,
 * which has none, mcpx caches CommonJS modules itself (code-cache.ts).
 *
 * `MCPX_COMPILE_CACHE`: unset, the cache is in `<tmpdir>/mcpx-compile-cache-<uid>`; `0`, `false`
 * or `off` turns it off; anything else is the directory to use. `NODE_DISABLE_COMPILE_CACHE`
 * turns it off too, and `NODE_COMPILE_CACHE` (Node's own) is honoured where Node has a cache.
 */
export interface CompileCacheStatus {
  /** `node`: Node's own cache; `mcpx`: mcpx's own CommonJS cache (Node 20); `off`: none. */
  mode: 'node' | 'mcpx' | 'off';
  /** Where the cache is kept, when on. */
  directory?: string;
  /** Why it is off, when it is. */
  reason?: string;
  /** mcpx's own cache only: modules compiled from the cache and from source, caches completed, files written. */
  counts?: CodeCacheCounts;
}

const OFF_VALUES = new Set(['0', 'false', 'off', 'no']);
// Kept on the module system itself: jest and other loaders may evaluate this file more than once.
const STATUS = Symbol.for('mcpx.compileCache');

type WithStatus = typeof Module & { [STATUS]?: CompileCacheStatus };
type NodeCompileCache = typeof Module & {
  enableCompileCache?: (dir?: string) => { status: number; message?: string; directory?: string };
  constants?: { compileCacheStatus?: { ENABLED: number; ALREADY_ENABLED: number } };
};

/** What the compile cache of this process is doing. */
export function compileCacheStatus(): CompileCacheStatus {
  const status = (Module as WithStatus)[STATUS] ?? { mode: 'off', reason: 'not started' };
  return { ...status, counts: status.counts && { ...status.counts } };
}

/** Turns the compile cache on once per process; never throws, as the cache is only a speed-up. */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): CompileCacheStatus {
  const holder = Module as WithStatus;
  if (!holder[STATUS]) {
    try {
      holder[STATUS] = start(env);
    } catch (err) {
      holder[STATUS] = { mode: 'off', reason: `could not start: ${(err as Error).message}` };
    }
  }
  return compileCacheStatus();
}

function start(env: NodeJS.ProcessEnv): CompileCacheStatus {
  const setting = env.MCPX_COMPILE_CACHE?.trim() ?? '';
  if (OFF_VALUES.has(setting.toLowerCase())) return { mode: 'off', reason: 'MCPX_COMPILE_CACHE' };
  if (env.NODE_DISABLE_COMPILE_CACHE) return { mode: 'off', reason: 'NODE_DISABLE_COMPILE_CACHE' };
  // Loaded by another module system (a test runner's sandbox): the modules after it are not Node's to compile.
  if ((Module as unknown as { _cache: Record<string, unknown> })._cache[__filename] === undefined) return { mode: 'off', reason: 'not loaded by Node’s CommonJS loader' };

  const builtIn = (Module as NodeCompileCache).enableCompileCache;
  if (builtIn) {
    // Node's own: its default directory (and NODE_COMPILE_CACHE) unless mcpx's variable names one.
    const result = builtIn(setting || undefined);
    const codes = (Module as NodeCompileCache).constants?.compileCacheStatus;
    const on = codes ? result.status === codes.ENABLED || result.status === codes.ALREADY_ENABLED : Boolean(result.directory);
    return on ? { mode: 'node', directory: result.directory } : { mode: 'off', reason: result.message ?? 'Node refused it' };
  }

  const refusal = unsafeForOwnCache(env);
  if (refusal) return { mode: 'off', reason: refusal };
  // Absolute: the file is written a second after the start, when the working directory may have changed.
  const directory = path.resolve(setting || path.join(os.tmpdir(), `mcpx-compile-cache-${process.getuid?.() ?? 'user'}`));
  const problem = privateDirectory(directory);
  if (problem) return { mode: 'off', directory, reason: problem };
  const counts = installCodeCache(path.join(directory, `${process.version}-${process.arch}`), entryPoint());
  return { mode: 'mcpx', directory, counts };
}

/** Where mcpx's own cache would change what a process observes, it stays off. */
function unsafeForOwnCache(env: NodeJS.ProcessEnv): string | undefined {
  const flags = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  // Source maps and coverage are computed by Node's own compile step, which the cache skips.
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled || flags.includes('--enable-source-maps')) return 'source maps are on';
  if (env.NODE_V8_COVERAGE) return 'NODE_V8_COVERAGE is set';
  if (flags.some((flag) => flag.startsWith('--experimental-policy'))) return 'a policy manifest is in force';
  return undefined;
}

/**
 * Cached code runs as this user's own, so the directory must be one no other user can write:
 * made with mode 700 if missing, and refused if it is a link, another user's, or group- or
 * world-writable.
 */
function privateDirectory(directory: string): string | undefined {
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stat = fs.lstatSync(directory);
    if (!stat.isDirectory()) return `${directory} is not a directory`;
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) return `${directory} belongs to another user`;
    if (process.platform !== 'win32' && (stat.mode & 0o022) !== 0) return `${directory} is writable by other users`;
    return undefined;
  } catch (err) {
    return `${directory}: ${(err as Error).message}`;
  }
}

/** The program being started: each has a cache file of its own, so two programs never evict each other. */
function entryPoint(): string {
  return require.main?.filename ?? process.argv[1] ?? process.cwd();
}
