import { createHash, hash as oneShotHash } from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { threadId } from 'node:worker_threads';

/**
 * mcpx's own compile cache for CommonJS modules, for Node versions without one of their own (20).
 * A module with a cache from an earlier start is compiled through `vm.Script` from that cache, used
 * only when the file's contents hash to what they hashed to then (V8 itself checks little more than
 * the length). A module without one is compiled the loader's own way, which is the fastest there is
 * from source, and its cache is made later, off the start's path: once no module has needed one for
 * a second (or at exit), a few modules per turn of the event loop. That cache, made before the code
 * ran, holds only what V8 compiles up front; the next start, having run the code, makes it again
 * with every function its start compiled. One file per program, replaced atomically, so concurrent
 * starts of one program never read half a file.
 */
export interface CodeCacheCounts {
  /** Modules compiled from the cache. */
  hits: number;
  /** Modules compiled from source: not in the cache, changed since, or refused by V8. */
  misses: number;
  /** Hits on a cache made before the module ran, made again once it has. */
  completions: number;
  /** Times the cache file was written. */
  writes: number;
}

interface CachedModule {
  /** The hash of the source it was made from. */
  hash: string;
  /** V8's code cache for it. */
  data: Buffer;
  /** Made after the module ran, with the functions its start compiled; otherwise only what V8 compiles up front. */
  complete: boolean;
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
/** How long one turn of the event loop may spend making caches, so that requests arriving meanwhile wait no longer. */
const TURN_BUDGET_MS = 4;
/** What the file may hold; modules beyond it are left out. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const HEADER_BYTES = 4;
// Each cache starts at a multiple of 8 bytes in the file (and in memory): V8 copies cached data that
// is not pointer-aligned before reading it, and frees the copy after; for a large module (a bundle
// of 567 KB has a cache of over 1 MB) that block raised glibc's mmap threshold, as above.
const ALIGN = 8;
const PADDING = Buffer.alloc(ALIGN);
type IndexEntry = [hash: string, offset: number, length: number, complete?: 0];
/**
 * import() in a script compiled here would find no loader to call (Node 20 offers one only as an
 * experimental constant, which warns). Any text that may be one, in a string or comment too (code
 * built with `new Function` or `eval` inherits the script's loader), keeps the module uncached.
 */
const MAY_IMPORT = /\bimport\s*\(/;

export function installCodeCache(directory: string, entry: string): CodeCacheCounts {
  const loader = Module as unknown as ModuleInternals;
  const counts: CodeCacheCounts = { hits: 0, misses: 0, completions: 0, writes: 0 };

  const file = path.join(directory, `${digest(entry).slice(0, 16)}.cache`);
  // The file's bytes are kept for the life of the process: each module's slice is a cache to offer
  // and, once something changed, what is written back. Freeing them would cost more than keeping
  // them: glibc serves a freed block this large by raising its mmap threshold, after which the
  // server's later buffers stay in its heap (the benchmark saw 0.8 KB more RSS per idle session).
  const stored = readCacheFile(file);
  // Compiled the loader's way: their sources, until their caches are made.
  const fromSource = new Map<string, string>();
  // Compiled here and run: their caches are made from the scripts, with what running them compiled.
  const ran = new Map<string, { hash: string; script: vm.Script }>();
  // Stack traces keep their columns: the wrapper shares the module's first line.
  const columnOffset = -loader.wrapper[0]!.length;
  const compile = (filename: string, content: string, cachedData?: Buffer) => new vm.Script(loader.wrap(withoutHashbang(content)), { filename, columnOffset, cachedData });

  const cacheOneFromSource = (filename: string, content: string) => {
    fromSource.delete(filename);
    try {
      stored.set(filename, { hash: digest(content), data: compile(filename, content).createCachedData(), complete: false });
    } catch {
      // Text V8 will not compile as a script: the loader compiled it its own way, and will again.
    }
  };
  const cacheOneRun = (filename: string, hash: string, script: vm.Script) => {
    ran.delete(filename);
    stored.set(filename, { hash, data: script.createCachedData(), complete: true });
  };
  const write = () => {
    dirty = false;
    try {
      writeCacheFile(file, directory, stored);
      counts.writes++;
    } catch {
      // A full disk or a removed directory costs the next start its speed-up, nothing else.
    }
  };

  let lastChange = 0;
  let dirty = false;
  let pending: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const changed = () => {
    lastChange = Date.now();
    dirty = true;
    if (!pending) (pending = setTimeout(whenQuiet, SETTLE_MS)).unref();
  };
  // One timer for a whole start, not one per module: it looks again until a second has passed quietly.
  const whenQuiet = () => {
    const wait = lastChange + SETTLE_MS - Date.now();
    if (wait > 0) (pending = setTimeout(whenQuiet, wait)).unref();
    else makeCaches();
  };
  // A few modules per turn: a server answering requests by now keeps answering them.
  const makeCaches = () => {
    pending = undefined;
    const until = performance.now() + TURN_BUDGET_MS;
    const nextTurn = () => void (pending = setImmediate(makeCaches)).unref();
    for (const [filename, content] of fromSource) {
      if (performance.now() > until) return nextTurn();
      cacheOneFromSource(filename, content);
    }
    for (const [filename, { hash, script }] of ran) {
      if (performance.now() > until) return nextTurn();
      cacheOneRun(filename, hash, script);
    }
    if (dirty) write();
  };
  process.once('exit', () => {
    if (!dirty) return;
    for (const [filename, content] of fromSource) cacheOneFromSource(filename, content);
    for (const [filename, { hash, script }] of ran) cacheOneRun(filename, hash, script);
    write();
  });

  const compileFromSource = loader.prototype._compile;
  loader.prototype._compile = function compileWithCache(this: CjsModule, content: string, filename: string, format?: string) {
    // ES modules, formats a later Node may add, and code that may call import() go the loader's own way.
    if (format !== undefined && format !== 'commonjs') return compileFromSource.call(this, content, filename, format);
    const known = stored.get(filename);
    let script: vm.Script | undefined;
    try {
      // The same text as when its cache was made, which had no import() and compiled as a script.
      if (known !== undefined && known.hash === digest(content)) script = compile(filename, content, known.data);
    } catch {
      // Whatever V8 objects to, the loader reports its own way.
    }
    if (known === undefined || script === undefined) {
      if (MAY_IMPORT.test(content)) return compileFromSource.call(this, content, filename, format);
      counts.misses++;
      fromSource.set(filename, content);
      changed();
      return compileFromSource.call(this, content, filename, format);
    }
    if (script.cachedDataRejected) counts.misses++;
    else counts.hits++;
    if (script.cachedDataRejected || !known.complete) {
      // Made (again) from this script, a second after the start, with what running it compiled.
      if (!script.cachedDataRejected) counts.completions++;
      ran.set(filename, { hash: known.hash, script });
      changed();
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

// Longer texts are hashed a slice at a time: hashing a string encodes it into one block, and freeing
// a block over 128 KB (1.7 MB for a 567 KB bundle) raises glibc's mmap threshold, as above.
const HASH_SLICE = 16 * 1024;

function digest(text: string): string {
  if (text.length <= HASH_SLICE) return typeof oneShotHash === 'function' ? oneShotHash('sha1', text, 'base64url') : createHash('sha1').update(text).digest('base64url');
  const hash = createHash('sha1');
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + HASH_SLICE, text.length);
    // A surrogate pair split in two would encode as two replacement characters.
    if (end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++;
    hash.update(text.slice(start, end));
    start = end;
  }
  return hash.digest('base64url');
}

/**
 * The file: a 4-byte length, a JSON index `{ filename: [hash, offset, length] }` (with a fourth
 * member, 0, for a cache made before the module ran), then the code caches, each at a multiple of
 * 8 bytes from the start (files written before they were aligned are read all the same).
 */
function readCacheFile(file: string): Map<string, CachedModule> {
  const modules = new Map<string, CachedModule>();
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return modules;
  }
  if (bytes.byteOffset % ALIGN !== 0) bytes = Buffer.from(bytes);
  try {
    const indexBytes = bytes.readUInt32LE(0);
    const body = HEADER_BYTES + indexBytes;
    const index = JSON.parse(bytes.toString('utf8', HEADER_BYTES, body)) as Record<string, IndexEntry>;
    for (const [filename, [hash, offset, length, complete]] of Object.entries(index)) {
      const start = body + offset;
      if (typeof hash !== 'string' || !Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length <= 0 || start + length > bytes.length) continue;
      modules.set(filename, { hash, data: bytes.subarray(start, start + length), complete: complete !== 0 });
    }
  } catch {
    // A damaged file is an empty cache: it is written anew.
    modules.clear();
  }
  return modules;
}

function writeCacheFile(file: string, directory: string, modules: Map<string, CachedModule>): void {
  const index: Record<string, IndexEntry> = Object.create(null) as Record<string, IndexEntry>;
  const parts: Buffer[] = [];
  let offset = 0;
  for (const [filename, { hash, data, complete }] of modules) {
    if (offset + data.length > MAX_FILE_BYTES) continue;
    index[filename] = complete ? [hash, offset, data.length] : [hash, offset, data.length, 0];
    const pad = (ALIGN - (data.length % ALIGN)) % ALIGN;
    parts.push(data, PADDING.subarray(0, pad));
    offset += data.length + pad;
  }
  const json = JSON.stringify(index);
  // Spaces after the index (JSON allows them) make the caches start on the boundary.
  const indexBytes = Buffer.from(json + ' '.repeat((ALIGN - ((HEADER_BYTES + Buffer.byteLength(json)) % ALIGN)) % ALIGN));
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
