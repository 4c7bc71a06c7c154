/**
 * The workspace's packages as npm will see them: which are public, that their versions and
 * internal ranges move together, that each has what a registry page and an install need, and
 * what `npm pack` would put in each tarball (compiled JS, .d.ts, README, LICENSE; no tests, no
 * source maps, no build info). The tarball check reads the built dist/ folders: `npm test` builds first.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const PUBLIC = ['@mcpx/core', '@mcpx/stdio', '@mcpx/http', '@mcpx/redis', '@mcpx/otel', '@mcpx/openapi', '@mcpx/proxy', '@mcpx/testing', '@mcpx/cli', 'mcpx'];
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  keywords?: string[];
  repository?: { type: string; url: string; directory: string };
  publishConfig?: { access?: string };
  engines?: { node?: string };
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  files?: string[];
  scripts?: Record<string, string>;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const read = <T>(file: string): T => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as T;
const workspaces = read<{ workspaces: string[] }>('package.json').workspaces.map((dir) => ({ dir, manifest: read<Manifest>(`${dir}/package.json`) }));
const publics = workspaces.filter((w) => !w.manifest.private);
const isTypeScript = (dir: string) => existsSync(join(ROOT, dir, 'tsconfig.json'));
/** The packages a server loads as it starts, each served from one file (scripts/bundle.mjs). */
const BUNDLED = ['@mcpx/core', '@mcpx/http', '@mcpx/stdio'];

describe('the workspace packages', () => {
  it('publishes exactly the framework packages and the mcpx command; the apps stay private', () => {
    expect(publics.map((w) => w.manifest.name).sort()).toEqual([...PUBLIC].sort());
    for (const w of workspaces.filter((w) => w.dir.startsWith('apps/'))) expect({ app: w.dir, private: w.manifest.private }).toEqual({ app: w.dir, private: true });
  });

  it('move together: one version, and every internal dependency at ^ that version', () => {
    const versions = new Set(publics.map((w) => w.manifest.version));
    expect([...versions]).toEqual(['0.1.0']);
    const expected = `^${[...versions][0]}`;
    const internal: string[] = [];
    for (const { dir, manifest } of workspaces) {
      for (const field of DEPENDENCY_FIELDS) {
        for (const [name, range] of Object.entries(manifest[field] ?? {})) {
          if (!PUBLIC.includes(name)) continue;
          internal.push(`${dir} ${name}`);
          expect({ dir, field, name, range }).toEqual({ dir, field, name, range: expected });
        }
      }
    }
    // The chain the command needs, at least: mcpx → cli → core, stdio, http.
    expect(internal).toEqual(expect.arrayContaining(['packages/mcpx @mcpx/cli', 'packages/cli @mcpx/core', 'packages/cli @mcpx/http', 'packages/cli @mcpx/stdio']));
  });

  it.each(publics.map((w) => [w.manifest.name, w] as const))('%s has what a registry and an install need', (_name, { dir, manifest }) => {
    expect(manifest).toMatchObject({
      license: 'MIT',
      publishConfig: { access: 'public' },
      engines: { node: '>=20' },
      repository: { type: 'git', url: 'git+https://github.com/mcpx/mcpx.git', directory: dir },
    });
    expect(manifest.keywords).toEqual(expect.arrayContaining(['mcp', 'model-context-protocol']));
    expect(readFileSync(join(ROOT, dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
    expect(readFileSync(join(ROOT, dir, 'README.md'), 'utf8')).toMatch(new RegExp(`^# ${manifest.name.replace('/', '\\/')}\\n`));
    if (isTypeScript(dir)) {
      // Built by `npm publish` / `npm pack` themselves, and importable from CommonJS and ESM alike.
      // A bundled package's entries are the bundle's; its types stay tsc's.
      const bundled = BUNDLED.includes(manifest.name);
      const main = bundled ? './dist/bundle/index.js' : './dist/index.js';
      expect(manifest.scripts?.prepack).toBe(bundled ? 'tsc -b tsconfig.json && node ../../scripts/bundle.mjs' : 'tsc -b tsconfig.json');
      expect(manifest).toMatchObject({ main, types: './dist/index.d.ts' });
      expect(manifest.exports?.['.']).toEqual({ types: './dist/index.d.ts', default: main });
      expect(manifest.exports?.['./package.json']).toBe('./package.json');
    }
  });

  it('links the mcpx bin from the mcpx package alone, through a committed, executable shim', () => {
    const owners = workspaces.filter((w) => w.manifest.bin && 'mcpx' in w.manifest.bin).map((w) => w.manifest.name);
    expect(owners).toEqual(['mcpx']);
    const shim = join(ROOT, 'packages/mcpx', read<Manifest>('packages/mcpx/package.json').bin!.mcpx!);
    expect(readFileSync(shim, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(statSync(shim).mode & 0o111).toBe(0o111);
    const run = spawnSync(process.execPath, [shim, '--version'], { encoding: 'utf8' });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 0, stdout: `${read<Manifest>('packages/cli/package.json').version}\n`, stderr: '' });
  });
});

describe('the tarballs (npm pack --dry-run)', () => {
  let packed: Map<string, string[]>;

  beforeAll(() => {
    // --ignore-scripts: list what the current build would ship without building again.
    const args = ['pack', '--dry-run', '--json', '--ignore-scripts', ...publics.flatMap((w) => ['-w', w.dir])];
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    const out = JSON.parse(execFileSync('npm', args, { cwd: ROOT, env, encoding: 'utf8' })) as { name: string; files: { path: string }[] }[];
    packed = new Map(out.map((p) => [p.name, p.files.map((f) => f.path).sort()]));
  });

  it('hold a package.json, the README and the LICENSE, and no tests, sources, source maps or build info', () => {
    expect([...packed.keys()].sort()).toEqual([...PUBLIC].sort());
    for (const [name, files] of packed) {
      expect({ name, files }).toEqual({ name, files: expect.arrayContaining(['package.json', 'README.md', 'LICENSE']) });
      // The cli's templates are the scaffold's own files (its src/ and test/), shipped as data.
      const unwanted = files.filter((f) => !/^templates(-app)?\//.test(f) && /\.map$|\.tsbuildinfo$|(^|\/)(src|test)\/|\.(test|spec)\.(js|d\.ts)$/.test(f));
      expect({ name, unwanted }).toEqual({ name, unwanted: [] });
    }
  });

  it.each(PUBLIC.filter((n) => n !== 'mcpx'))('%s ships dist/index.js with its types, and only what its sources compile to', (name) => {
    const { dir, manifest } = publics.find((w) => w.manifest.name === name)!;
    const files = packed.get(name)!;
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts']));
    const fromSources = (f: string) => existsSync(join(ROOT, dir, f.replace(/^dist\//, 'src/').replace(/(\.d\.ts|\.js)$/, '.ts')));
    // A bundled package also ships the bundle, its loader and every entry the manifest serves from it.
    const bundle = files.filter((f) => f.startsWith('dist/bundle/'));
    if (BUNDLED.includes(name)) {
      const entries = Object.values(manifest.exports!).flatMap((e) => (typeof e === 'object' ? [(e as { default: string }).default.slice(2)] : []));
      expect(bundle.sort()).toEqual(['dist/bundle/all.js', 'dist/bundle/load.js', ...entries.filter((e) => e.startsWith('dist/bundle/'))].sort());
    } else {
      expect(bundle).toEqual([]);
    }
    const compiled = files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'));
    expect(compiled.filter((f) => !fromSources(f))).toEqual([]);
    expect(
      compiled
        .filter((f) => f.endsWith('.js'))
        .map((f) => f.replace(/\.js$/, '.d.ts'))
        .filter((d) => !files.includes(d)),
    ).toEqual([]);
  });

  it.each(['templates', 'templates-app'])('@mcpx/cli ships every file of %s, which mcpx init writes', (folder) => {
    const templates = join(ROOT, 'packages/cli', folder);
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    const onDisk = walk(templates).map((f) => relative(join(ROOT, 'packages/cli'), f));
    expect(onDisk.length).toBeGreaterThan(5);
    expect(packed.get('@mcpx/cli')!.filter((f) => f.startsWith(`${folder}/`))).toEqual(onDisk.sort());
  });

  it('mcpx ships its bin shim alone', () => {
    expect(packed.get('mcpx')).toEqual(['LICENSE', 'README.md', 'bin/mcpx.js', 'package.json']);
  });
});
