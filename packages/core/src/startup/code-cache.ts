import { createHash, hash as oneShotHash } from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { threadId } from 'node:worker_threads';

/**
 * mcpx's own compile cache for CommonJS modules, for Node versions without one of their own (20).
 * Each module compiled after this is installed goes through `vm.Script` with the V8 code cache an
 * earlier start wrote for the same file; the cache is used only when the file's contents hash to
 * what they hashed to then (V8 itself checks little more than the length). A module compiled from
 * source, or whose cache V8 refused, marks the cache stale: once no module has been compiled from
 * source for a second (or at exit) the file is written again, with what it held kept beside. One
 * file per program, replaced atomically, so concurrent starts of one program never read half a file.
 */
export interface CodeCacheCounts {
  /** Modules compiled from the cache. */
  hits: number;
  /** Modules compiled from source: not in the cache, changed since, or refused by V8. */
  misses: number;
  /** Times the cache file was written. */
  writes: number;
}

interface CachedModule {
  /** The hash of the source it was made from. */
  hash: string;
  /** V8's code cache for it. */
  data: Buffer;
}

/** The loader's own members this relies on, present on every Node this cache runs on. */
interface ModuleInternals {
  prototype: { _compile: (this: CjsModule, content: string, filename: string, format?: string) => unknown };
  wrap(content: string): string;
  wrapper: readonly string[];
  _resolveFilename(request: string, parent: CjsModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: CjsModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
}
interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
}

const SETTLE_MS = 1000;
/** What the file may hold; modules beyond it are left out. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const HEADER_BYTES = 4;
/**
 * import() in a script compiled here would find no loader to call (Node 20 offers one only as an
 * experimental constant, which warns). Any text that may be one, in a string or comment too (code
 * built with `new Function` or `eval` inherits the script's loader), keeps the module uncached.
 */
const MAY_IMPORT = /\bimport\s*\(/;

export function installCodeCache(directory: string, entry: string): CodeCacheCounts {
  const loader = Module as unknown as ModuleInternals;
  const counts: CodeCacheCounts = { hits: 0, misses: 0, writes: 0 };

  const file = path.join(directory, `${digest(entry).slice(0, 16)}.cache`);
  // The file's bytes are kept for the life of the process: each module's slice is a cache to offer
  // and, once something changed, what is written back. Freeing them would cost more than keeping
  // them: glibc serves a freed block this large by raising its mmap threshold, after which the
  // server's later buffers stay in its heap (the benchmark saw 0.8 KB more RSS per idle session).
  const stored = readCacheFile(file);
  const compiled = new Map<string, { hash: string; script: vm.Script }>();
  let settleTimer: NodeJS.Timeout | undefined;
  // Stack traces keep their columns: the wrapper shares the module's first line.
  const columnOffset = -loader.wrapper[0]!.length;

  // Written once no module has been compiled from source for a while, with what the file held.
  const settle = () => {
    if (settleTimer) clearTimeout(settleTimer);
    settleTimer = undefined;
    if (compiled.size === 0) return;
    for (const [filename, { hash, script }] of compiled) stored.set(filename, { hash, data: script.createCachedData() });
    compiled.clear();
    try {
      writeCacheFile(file, directory, stored);
      counts.writes++;
    } catch {
      // A full disk or a removed directory costs the next start its speed-up, nothing else.
    }
  };
  // One timer for a whole start, not one per module: it looks again until a second has passed quietly.
  let lastFromSource = 0;
  const settleWhenQuiet = () => {
    const wait = lastFromSource + SETTLE_MS - Date.now();
    if (wait > 0) (settleTimer = setTimeout(settleWhenQuiet, wait)).unref();
    else settle();
  };
  const compiledFromSource = (filename: string, hash: string, script: vm.Script) => {
    compiled.set(filename, { hash, script });
    lastFromSource = Date.now();
    if (!settleTimer) (settleTimer = setTimeout(settleWhenQuiet, SETTLE_MS)).unref();
  };
  process.once('exit', settle);

  const compileFromSource = loader.prototype._compile;
  loader.prototype._compile = function compileWithCache(this: CjsModule, content: string, filename: string, format?: string) {
    // ES modules, formats a later Node may add, and code that may call import() go the loader's own way.
    if ((format !== undefined && format !== 'commonjs') || MAY_IMPORT.test(content)) return compileFromSource.call(this, content, filename, format);
    const hash = digest(content);
    const known = stored.get(filename);
    const cachedData = known && known.hash === hash ? known.data : undefined;
    let script: vm.Script;
    try {
      script = new vm.Script(loader.wrap(withoutHashbang(content)), { filename, columnOffset, cachedData });
    } catch {
      // A syntax error (or ES module syntax Node may detect): the loader reports it its own way.
      return compileFromSource.call(this, content, filename, format);
    }
    if (cachedData !== undefined && !script.cachedDataRejected) counts.hits++;
    else {
      counts.misses++;
      compiledFromSource(filename, hash, script);
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, requireFor(this, loader), this, filename, path.dirname(filename));
  };
  return counts;
}

/** The `require` a module sees, as the loader makes it. */
function requireFor(module: CjsModule, loader: ModuleInternals) {
  const requireOne = (id: string) => module.require(id);
  const resolve = (request: string, options?: unknown) => loader._resolveFilename(request, module, false, options);
  resolve.paths = (request: string) => loader._resolveLookupPaths(request, module);
  return Object.assign(requireOne, { resolve, main: require.main, extensions: loader._extensions, cache: loader._cache });
}

/** A `#!` line is legal only at the very start of a script, which the wrapper no longer is; lines keep their numbers. */
function withoutHashbang(content: string): string {
  return content.startsWith('#!') ? `//${content.slice(2)}` : content;
}

function digest(text: string): string {
  return typeof oneShotHash === 'function' ? oneShotHash('sha1', text, 'base64url') : createHash('sha1').update(text).digest('base64url');
}

/** The file: a 4-byte length, a JSON index `{ filename: [hash, offset, length] }`, then the code caches. */
function readCacheFile(file: string): Map<string, CachedModule> {
  const modules = new Map<string, CachedModule>();
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return modules;
  }
  try {
    const indexBytes = bytes.readUInt32LE(0);
    const body = HEADER_BYTES + indexBytes;
    const index = JSON.parse(bytes.toString('utf8', HEADER_BYTES, body)) as Record<string, [string, number, number]>;
    for (const [filename, [hash, offset, length]] of Object.entries(index)) {
      const start = body + offset;
      if (typeof hash !== 'string' || !Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length <= 0 || start + length > bytes.length) continue;
      modules.set(filename, { hash, data: bytes.subarray(start, start + length) });
    }
  } catch {
    // A damaged file is an empty cache: it is written anew.
    modules.clear();
  }
  return modules;
}

function writeCacheFile(file: string, directory: string, modules: Map<string, CachedModule>): void {
  const index: Record<string, [string, number, number]> = Object.create(null) as Record<string, [string, number, number]>;
  const parts: Buffer[] = [];
  let offset = 0;
  for (const [filename, { hash, data }] of modules) {
    if (offset + data.length > MAX_FILE_BYTES) continue;
    index[filename] = [hash, offset, data.length];
    parts.push(data);
    offset += data.length;
  }
  const indexBytes = Buffer.from(JSON.stringify(index));
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(indexBytes.length, 0);
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temporary = path.join(directory, `.${path.basename(file)}.${process.pid}-${threadId}.tmp`);
  // Written piece by piece: one buffer of the whole would be a large block freed right after (see above).
  const fd = fs.openSync(temporary, 'w', 0o600);
  try {
    fs.writevSync(fd, [header, indexBytes, ...parts]);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
}
