// `node scripts/bundle.mjs [package dir ...]`, run by `npm run build` after tsc and by each bundled
// package's prepack: the packages a server loads as it starts (@mcpx/core, @mcpx/http, @mcpx/stdio)
// each get one file holding all their modules, dist/bundle/all.js. The benchmark server's first
// start then finds and reads 15 of mcpx's files instead of 185, and listens about 40 ms sooner
// (docs/performance.md, "One file per package"). `--clean` removes what this script wrote.
//
// A package opts in through its manifest: an export whose `default` is under ./dist/bundle/ is
// served from the bundle, its `types` naming tsc's file it stands for. Exports that are not (the
// light `@mcpx/core/errors`, `@mcpx/stdio/guard`) stay tsc's files, and so does every module they
// load: the bundle requires those files rather than holding copies, so a module's state and classes
// exist once. Modules to load before the bundle compiles are in PRELOAD (the compile cache, which
// must be on before the bundle compiles to cache it).
//
// dist/bundle/load.js picks the copy: the bundle, unless tsc has written dist/ again since it was
// made (a `tsc -b` without this script; dist/.tsbuildinfo is then newer), in which case tsc's files,
// so a stale bundle never runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_PACKAGES = ['packages/core', 'packages/http', 'packages/stdio'];
const PRELOAD = { '@mcpx/core': ['startup/enable.js'] };
const BUNDLE_DIR = 'dist/bundle';
const BUILD_INFO = 'dist/.tsbuildinfo';

// The end of each load.js. require() reads a file into one block that grows as it reads; freeing
// a block this large (over 1 MB for core's bundle) raises glibc's mmap threshold for the rest of
// the process (with the two other large frees at start, an idle session kept 0.3 KB more resident;
// this one was not measured alone). So the bundle is read in
// pieces and compiled as require() would compile it (through the compile cache too), where Node's
// own loader is the one loading it.
const LOAD_BUNDLE = `
function loadBundle(file) {
  const Module = require('node:module');
  // Under another module system (a test runner's), the bundle must run in its realm: its require.
  if (Module._cache[__filename] !== module) return require(file);
  const known = Module._cache[file];
  if (known !== undefined) return known.exports;
  const fs = require('node:fs');
  const decoder = new (require('node:string_decoder').StringDecoder)('utf8');
  const piece = Buffer.allocUnsafe(64 * 1024);
  const fd = fs.openSync(file, 'r');
  let source = '';
  try {
    for (let n; (n = fs.readSync(fd, piece, 0, piece.length, null)) > 0; ) source += decoder.write(piece.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  source += decoder.end();
  const bundle = new Module(file, module);
  bundle.filename = file;
  bundle.paths = Module._nodeModulePaths(__dirname);
  Module._cache[file] = bundle;
  try {
    bundle._compile(source, file);
  } catch (err) {
    delete Module._cache[file];
    throw err;
  }
  bundle.loaded = true;
  return bundle.exports;
}
`;

const args = process.argv.slice(2);
const clean = args.includes('--clean');
const dirs = args.filter((a) => a !== '--clean');
// From a package's prepack (npm runs it in the package's folder) with no argument: that package.
const packages = dirs.length > 0 ? dirs.map((d) => resolve(d)) : process.env.npm_lifecycle_event === 'prepack' ? [process.cwd()] : DEFAULT_PACKAGES.map((d) => join(ROOT, d));

for (const dir of packages) {
  if (clean) rmSync(join(dir, BUNDLE_DIR), { recursive: true, force: true });
  else await bundle(dir);
}

/** The subpath's key in the bundle's exports: '.' is `index`, './transport' is `transport`. */
function keyOf(subpath) {
  return subpath === '.' ? 'index' : subpath.slice(2).replace(/[^A-Za-z0-9_$]/g, '_');
}

async function bundle(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const dist = join(dir, 'dist');
  const out = join(dir, BUNDLE_DIR);
  const entries = [];
  const kept = (PRELOAD[manifest.name] ?? []).map((f) => join(dist, f));
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target !== 'object') continue;
    if (!target.default.startsWith(`./${BUNDLE_DIR}/`)) {
      kept.push(join(dir, target.default));
      continue;
    }
    const source = join(dir, target.types.replace(/\.d\.ts$/, '.js'));
    const shim = join(dir, target.default);
    if (!existsSync(source)) throw new Error(`${manifest.name}: ${relative(ROOT, source)} is missing: run tsc -b first`);
    entries.push({ key: keyOf(subpath), source, shim });
  }
  if (entries.length === 0) throw new Error(`${manifest.name}: no export is served from ${BUNDLE_DIR}`);
  if (manifest.main !== manifest.exports['.'].default) throw new Error(`${manifest.name}: "main" must be the "." export's default`);
  const info = statSync(join(dir, BUILD_INFO), { throwIfNoEntry: false });
  if (!info) throw new Error(`${manifest.name}: ${BUILD_INFO} is missing: run tsc -b first`);

  // Every module a kept file loads stays a file of its own, required by the bundle.
  const shared = new Set();
  if (kept.length > 0) {
    const { metafile } = await build({
      entryPoints: kept,
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'node',
      packages: 'external',
      write: false,
      metafile: true,
      outdir: out,
      logLevel: 'error',
    });
    for (const input of Object.keys(metafile.inputs)) shared.add(resolve(ROOT, input));
  }
  const keepShared = {
    name: 'keep-shared',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (a) => {
        const base = resolve(a.resolveDir, a.path);
        const file = [base, `${base}.js`, join(base, 'index.js')].find((f) => shared.has(f));
        if (!file) return undefined;
        const path = relative(out, file).split(sep).join('/');
        return { path: path.startsWith('.') ? path : `./${path}`, external: true };
      });
    },
  };

  mkdirSync(out, { recursive: true });
  await build({
    stdin: {
      contents: entries.map((e) => `exports.${e.key} = require(${JSON.stringify(`./${relative(dist, e.source).split(sep).join('/')}`)});`).join('\n'),
      resolveDir: dist,
      sourcefile: 'bundle-entry.js',
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    outfile: join(out, 'all.js'),
    plugins: [keepShared],
    logLevel: 'warning',
  });

  // What each entry exports, read from tsc's files, so a shim can list it (Node's ESM import of
  // CommonJS finds names only where they are assigned one by one).
  const names = JSON.parse(
    execFileSync(process.execPath, ['-e', `process.stdout.write(JSON.stringify(${JSON.stringify(entries.map((e) => e.source))}.map((f) => Object.keys(require(f)))))`], {
      env: { ...process.env, MCPX_COMPILE_CACHE: 'off' },
      encoding: 'utf8',
    }),
  );

  // After tsc's last write: a later one means dist/ changed. Copies that keep times (cp -p, a
  // container's COPY) may round them down, never up, so they still load the bundle.
  const madeAt = Math.max(Date.now(), Math.ceil(info.mtimeMs));
  const toDist = (file) => relative(out, file).split(sep).join('/');
  const header = `// Written by scripts/bundle.mjs: do not edit.\n'use strict';\n`;
  writeFileSync(
    join(out, 'load.js'),
    header +
      (PRELOAD[manifest.name] ?? []).map((f) => `require('../${f}');\n`).join('') +
      `// The bundle, unless tsc has written dist/ again since it was made: then tsc's own files.\n` +
      `// Published packages hold no ${BUILD_INFO.slice(5)}, and always load the bundle.\n` +
      `const info = require('node:fs').statSync(require('node:path').join(__dirname, '../${BUILD_INFO.slice(5)}'), { throwIfNoEntry: false });\n` +
      `module.exports =\n  info === undefined || info.mtimeMs <= ${JSON.stringify(madeAt)}\n    ? loadBundle(require('node:path').join(__dirname, 'all.js'))\n    : {\n` +
      entries.map((e) => `        get ${e.key}() {\n          return require('${toDist(e.source)}');\n        },\n`).join('') +
      `      };\n` +
      LOAD_BUNDLE,
  );
  entries.forEach((e, i) => {
    const from = relative(dirname(e.shim), join(out, 'load.js')).split(sep).join('/');
    writeFileSync(
      e.shim,
      header +
        `Object.defineProperty(exports, '__esModule', { value: true });\n` +
        `const m = require('${from.startsWith('.') ? from : `./${from}`}').${e.key};\n` +
        names[i]
          .filter((n) => n !== '__esModule')
          .map((n) => `exports.${n} = m.${n};\n`)
          .join('') +
        `// tsc's files, loaded in place of a stale bundle, may export names added since: those too.\n` +
        `for (const name of Object.keys(m)) if (!(name in exports)) exports[name] = m[name];\n`,
    );
  });
  // On stderr: `npm run start:stdio` builds first, and its stdout must carry MCP messages only.
  process.stderr.write(`bundled ${manifest.name}: ${entries.length} entries, ${shared.size} modules kept as files\n`);
}
