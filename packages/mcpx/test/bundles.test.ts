/**
 * The bundled packages (@mcpx/core, @mcpx/http, @mcpx/stdio; scripts/bundle.mjs) as a server loads
 * them: from one file each, with the modules their light entries share kept single, the same
 * exports as tsc's files for CommonJS and ESM alike, and tsc's files instead whenever tsc has
 * written dist/ again since the bundle was made. Reads the built packages: `npm test` builds first.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const BUNDLED = ['core', 'http', 'stdio'];

/** Runs `code` (CommonJS, or an ES module with `esm`) in a fresh node from `cwd`; its stdout, parsed as JSON. */
function run<T>(code: string, cwd = ROOT, esm = false): T {
  const args = esm ? ['--input-type=module', '-e', code] : ['-e', code];
  return JSON.parse(execFileSync(process.execPath, args, { cwd, env: { ...process.env, MCPX_COMPILE_CACHE: 'off' }, encoding: 'utf8' })) as T;
}

/** Files of packages/<name>/dist that a process has loaded, relative to dist. */
const LOADED = `(name) => Object.keys(require.cache).filter((f) => f.includes('/packages/' + name + '/dist/')).map((f) => f.split('/dist/')[1]).sort()`;

beforeAll(() => {
  for (const name of BUNDLED) {
    if (!existsSync(join(ROOT, 'packages', name, 'dist/bundle/all.js'))) throw new Error(`packages/${name} is not bundled: run npm run build first`);
  }
});

describe('a server start', () => {
  it('loads each bundled package from its bundle, and from tsc’s files only what the light entries share', () => {
    const loaded = run<Record<string, string[]>>(
      `require('@mcpx/http'); require('@mcpx/stdio'); const l = ${LOADED}; process.stdout.write(JSON.stringify({ core: l('core'), http: l('http'), stdio: l('stdio') }))`,
    );
    expect(loaded).toEqual({
      // @mcpx/http uses three more of core's entries, all from the bundle.
      core: [
        'bundle/all.js',
        'bundle/index.js',
        'bundle/load.js',
        'bundle/registry.js',
        'bundle/stores.js',
        'bundle/transport.js',
        'errors.js',
        'protocol/errors.js',
        'startup/code-cache.js',
        'startup/compile-cache.js',
        'startup/deferred-modules.js',
        'startup/enable.js',
      ].sort(),
      http: ['bundle/all.js', 'bundle/index.js', 'bundle/load.js'],
      stdio: ['bundle/all.js', 'bundle/index.js', 'bundle/load.js', 'guard-stdout.js'],
    });
  });

  it('keeps one copy of what the bundle shares with an entry served from tsc’s files', () => {
    const same = run<Record<string, boolean>>(
      `const core = require('@mcpx/core'); const errors = require('@mcpx/core/errors');
       process.stdout.write(JSON.stringify({ McpError: core.McpError === errors.McpError, ErrorCode: core.ErrorCode === errors.ErrorCode, McpxError: core.McpxError === errors.McpxError }))`,
    );
    expect(same).toEqual({ McpError: true, ErrorCode: true, McpxError: true });
  });

  it.each([
    ['@mcpx/core', 'packages/core/dist/index.js'],
    ['@mcpx/core/transport', 'packages/core/dist/transport.js'],
    ['@mcpx/core/protocol', 'packages/core/dist/exports/protocol.js'],
    ['@mcpx/core/stores', 'packages/core/dist/exports/stores.js'],
    ['@mcpx/http', 'packages/http/dist/index.js'],
    ['@mcpx/stdio', 'packages/stdio/dist/index.js'],
  ])('%s exports what tsc’s %s does, to require and to import alike', (specifier, tscFile) => {
    const fromTsc = run<string[]>(`process.stdout.write(JSON.stringify(Object.keys(require('./${tscFile}')).sort()))`);
    expect(fromTsc.length).toBeGreaterThan(0);
    expect(run<string[]>(`process.stdout.write(JSON.stringify(Object.keys(require('${specifier}')).sort()))`)).toEqual(fromTsc);
    const imported = (from: string) => run<string[]>(`const m = await import('${from}'); process.stdout.write(JSON.stringify(Object.keys(m).sort()))`, ROOT, true);
    const names = imported(specifier);
    expect(names).toEqual(expect.arrayContaining(fromTsc));
    expect(names).toEqual(imported(`./${tscFile}`));
  });
});

describe('which copy loads', () => {
  // A copy of @mcpx/core where node finds the workspace's dependencies (under the root's node_modules).
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(ROOT, 'node_modules', '.bundles-test-'));
    cpSync(join(ROOT, 'packages/core/package.json'), join(dir, 'package.json'));
    cpSync(join(ROOT, 'packages/core/dist'), join(dir, 'dist'), { recursive: true, preserveTimestamps: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** When load.js says its bundle was made (from the number it compares dist/.tsbuildinfo's time with). */
  const madeAt = (root: string) => Number(/info\.mtimeMs <= ([\d.]+)/.exec(readFileSync(join(root, 'dist/bundle/load.js'), 'utf8'))?.[1]);
  /** As `tsc -b` leaves dist/ when it writes there after the bundle was made. */
  const tscWroteSince = () => {
    const later = new Date(madeAt(dir) + 2_000);
    utimesSync(join(dir, 'dist/.tsbuildinfo'), later, later);
  };

  const loadedIn = () =>
    run<string[]>(
      `const m = require('.'); if (typeof m.Server !== 'function') throw new Error('no Server');
       process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(dir)})).map((f) => f.slice(${dir.length + 1}))))`,
      dir,
    );

  it('is made without a byte on stdout, where `npm run start:stdio` (which builds first) speaks MCP', () => {
    const made = spawnSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs'), dir], { encoding: 'utf8' });
    expect(made.status).toBe(0);
    expect(made.stdout).toBe('');
    expect(made.stderr).toContain('bundled @mcpx/core:');
    expect(loadedIn()).toContain('dist/bundle/all.js');
  });

  it('is the bundle when tsc has not written dist/ since it was made', () => {
    const loaded = loadedIn();
    expect(loaded).toContain('dist/bundle/all.js');
    expect(loaded).not.toContain('dist/engine/engine.js');
  });

  it('is tsc’s files once tsc has written dist/ again, so a stale bundle never runs', () => {
    tscWroteSince();
    const loaded = loadedIn();
    expect(loaded).not.toContain('dist/bundle/all.js');
    expect(loaded).toEqual(expect.arrayContaining(['dist/bundle/load.js', 'dist/index.js', 'dist/engine/engine.js']));
  });

  it('exports from tsc’s files what was added after the bundle was made', () => {
    writeFileSync(join(dir, 'dist/index.js'), `${readFileSync(join(dir, 'dist/index.js'), 'utf8')}\nexports.addedSinceTheBundle = 42;\n`);
    tscWroteSince();
    const added = run<unknown[]>(`const m = require('.'); process.stdout.write(JSON.stringify([m.addedSinceTheBundle, typeof m.Server]))`, dir);
    expect(added).toEqual([42, 'function']);
  });

  it('is the bundle in a published package, which holds no build info', () => {
    rmSync(join(dir, 'dist/.tsbuildinfo'));
    expect(loadedIn()).toContain('dist/bundle/all.js');
  });

  it('was made after tsc last wrote dist/', () => {
    expect(madeAt(join(ROOT, 'packages/core'))).toBeGreaterThanOrEqual(statSync(join(ROOT, 'packages/core/dist/.tsbuildinfo')).mtimeMs);
  });
});
