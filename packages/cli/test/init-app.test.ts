import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { INIT_USAGE, runInit } from '../src/init';
import { APP_TOOLCHAIN } from '../src/init-package-json';
import { APP_TEMPLATES_DIR, TEMPLATES_DIR } from '../src/init-templates';
import { parseDockerfile } from './dockerfile';

/**
 * `mcpx init --template app`: a server whose tool has an MCP Apps view. As in init.test.ts, the
 * project is written inside the repo (.tmp-init-*, git-ignored) so that @mcpx/*, esbuild,
 * @modelcontextprotocol/ext-apps and the toolchain resolve from the repo's node_modules without an
 * install; the @mcpx packages and the cli must be built first (`npm test` does).
 * packages/mcpx/test/registry.load.test.ts installs the same project from a registry.
 */
const root = join(__dirname, '..', '..', '..');
const tscBin = join(root, 'node_modules/typescript/bin/tsc');
const jestBin = join(root, 'node_modules/jest/bin/jest.js');
const cliBin = join(root, 'packages/cli/dist/bin.js');
const made: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(root, '.tmp-init-'));
  made.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function capture() {
  let stdout = '';
  let stderr = '';
  return {
    io: { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } },
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

function run(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, FORCE_COLOR: '0', NODE_ENV: 'test' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every file under `dir`, relative, sorted. */
function filesOf(dir: string): string[] {
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  return walk(dir)
    .map((f) => relative(dir, f).split('\\').join('/'))
    .sort();
}

const VIEW = 'ui://hello-app/counter';
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

describe('mcpx init --template app: the scaffolded project', () => {
  let dir: string;
  let out: ReturnType<typeof capture>;

  beforeAll(async () => {
    for (const pkg of ['core', 'http', 'stdio', 'testing', 'cli']) {
      if (!existsSync(join(root, 'packages', pkg, 'dist/index.js'))) throw new Error(`packages/${pkg} is not built: run npm run build first`);
    }
    dir = tempDir();
    out = capture();
    expect(await runInit([dir, '--name', '@acme/hello-app', '--template', 'app'], out.io)).toBe(0);
  });

  it('writes the default files with the app template over them, the placeholders filled in', () => {
    const files = [
      '.dockerignore',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'jest.config.js',
      'package.json',
      'scripts/build-ui.mjs',
      'src/logger.ts',
      'src/main-stdio.ts',
      'src/main.ts',
      'src/server.ts',
      'src/ui/view.html',
      'src/ui/view.ts',
      'test/server.test.ts',
      'tsconfig.json',
      'tsconfig.test.json',
      'tsconfig.ui.json',
    ];
    expect(filesOf(dir)).toEqual(files);
    for (const file of files) {
      expect({ file, placeholders: /\{\{|\}\}/.test(readFileSync(join(dir, file), 'utf8')) }).toEqual({ file, placeholders: false });
      expect(out.stdout).toContain(`  ${file}\n`);
    }
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('README.md says how to see the view in a host that renders MCP Apps.');
    const server = readFileSync(join(dir, 'src/server.ts'), 'utf8');
    expect(server).toContain(`export const COUNTER_VIEW = '${VIEW}';`);
    expect(server).toContain("file: '../dist/ui/view.html'");
    expect(server).toContain("name: '@acme/hello-app'");
    expect(readFileSync(join(dir, 'src/ui/view.ts'), 'utf8')).toContain("from '@modelcontextprotocol/ext-apps'");
    expect(readFileSync(join(dir, 'src/ui/view.html'), 'utf8')).toContain('<script type="module" src="./view.ts"></script>');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('docker build -t acme-hello-app .');
  });

  it('keeps the default template for what it does not replace', () => {
    const own = filesOf(APP_TEMPLATES_DIR).map((f) => f.replace(/\.tmpl$/, ''));
    for (const file of ['jest.config.js', 'src/logger.ts', 'src/main.ts', 'src/main-stdio.ts']) {
      expect(own).not.toContain(file);
      expect(readFileSync(join(dir, file), 'utf8')).toBe(readFileSync(join(TEMPLATES_DIR, file), 'utf8').replace(/\{\{name\}\}/g, '@acme/hello-app'));
    }
  });

  it('has the default scripts, with the view bundled before tsc, and the view toolchain as dev dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@acme/hello-app', main: 'dist/server.js', bin: { 'hello-app': 'dist/main-stdio.js' }, files: ['dist'] });
    expect(pkg.scripts).toMatchObject({
      build: 'tsc -p tsconfig.ui.json && node scripts/build-ui.mjs && tsc -p tsconfig.json',
      'build:ui': 'tsc -p tsconfig.ui.json && node scripts/build-ui.mjs',
      pretest: 'npm run build:ui',
      test: 'jest',
      start: 'npm run build --silent && node dist/main.js',
      'start:stdio': 'npm run build --silent && node dist/main-stdio.js',
      prepack: 'npm run build',
      manifest: 'npm run build --silent && mcpx manifest',
    });
    const defaultScripts = ['build', 'typecheck', 'test', 'start', 'start:stdio', 'prepack', 'dev', 'manifest'];
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(defaultScripts));
    expect(pkg.devDependencies).toMatchObject(APP_TOOLCHAIN);
    expect(pkg.dependencies).not.toHaveProperty('@modelcontextprotocol/ext-apps');
  });

  it('has a Dockerfile whose build stage copies what npm run build reads', () => {
    const text = readFileSync(join(dir, 'Dockerfile'), 'utf8');
    expect(text).toContain('COPY tsconfig.json tsconfig.ui.json ./');
    expect(text).toContain('COPY scripts ./scripts');
    expect(text).toContain('COPY src ./src');
    const image = parseDockerfile(text);
    expect(image.lines).toContain('COPY --from=build /app/dist ./dist');
    expect(image.command).toEqual(['node', 'dist/main.js']);
    expect(image.user).toBe('node');
  });

  it('bundles the view into one HTML file, builds with its own tsconfigs, and its own tests pass', async () => {
    // `npm run build`, step by step: the view's type check, its bundle, the server.
    const ui = await run([tscBin, '-p', join(dir, 'tsconfig.ui.json')], root);
    expect(ui.stdout + ui.stderr).toBe('');
    expect(ui.code).toBe(0);
    const bundle = await run([join(dir, 'scripts/build-ui.mjs')], dir);
    expect(bundle.stdout).toBe('');
    expect(bundle.stderr).toMatch(/^built dist\/ui\/view\.html \(\d+ kB\)\n$/);
    expect(bundle.code).toBe(0);
    const html = readFileSync(join(dir, 'dist/ui/view.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<script type="module">');
    expect(html).not.toMatch(/<script[^>]*\ssrc=/);
    expect(html).toContain('ui/initialize');
    const build = await run([tscBin, '-p', dir], root);
    expect(build.stdout + build.stderr).toBe('');
    expect(build.code).toBe(0);
    // The server only: the view is not compiled by tsc, esbuild bundles it.
    expect(filesOf(join(dir, 'dist')).filter((f) => !f.endsWith('.map'))).toEqual(['logger.js', 'main-stdio.js', 'main.js', 'server.js', 'ui/view.html']);
    const typecheck = await run([tscBin, '-p', join(dir, 'tsconfig.test.json')], root);
    expect(typecheck.stdout + typecheck.stderr).toBe('');

    const tests = await run([jestBin, '--rootDir', dir, '--ci'], dir);
    expect(tests.stdout + tests.stderr).toMatch(/Tests:\s+10 passed, 10 total/);
    expect(tests.code).toBe(0);
  }, 120_000);

  it('serves the view from the compiled server over stdio, to a client that renders views', async () => {
    const child = spawn(process.execPath, [join(dir, 'dist/main-stdio.js')], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let buffer = '';
    const replies = new Map<number, (reply: any) => void>();
    child.stdout.on('data', (c) => {
      buffer += c;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        replies.get(message.id)?.(message);
      }
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const request = (id: number, method: string, params: object) =>
      new Promise<any>((resolve) => {
        replies.set(id, resolve);
        send({ id, method, params });
      });
    try {
      const init = await request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: APPS, clientInfo: { name: 'init-app-test', version: '0' } });
      expect(init.result.serverInfo).toMatchObject({ name: '@acme/hello-app' });
      send({ method: 'notifications/initialized' });
      const tools = await request(2, 'tools/list', {});
      expect(tools.result.tools.map((t: { name: string; _meta?: object }) => [t.name, t._meta])).toEqual([
        ['counter', { ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW }],
        ['add', { ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW }],
      ]);
      const read = await request(3, 'resources/read', { uri: VIEW });
      expect(read.result.contents).toEqual([
        { uri: VIEW, mimeType: 'text/html;profile=mcp-app', text: readFileSync(join(dir, 'dist/ui/view.html'), 'utf8'), _meta: { ui: { prefersBorder: true } } },
      ]);
      const add = await request(4, 'tools/call', { name: 'add', arguments: { by: 5 } });
      expect(add.result.structuredContent).toEqual({ count: 5 });
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
  });

  it('mcpx read prints the view from the compiled entry', async () => {
    const read = await run([cliBin, 'read', 'dist/server.js', VIEW], dir);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain(readFileSync(join(dir, 'dist/ui/view.html'), 'utf8').slice(0, 200));
  });
});

describe('mcpx init --template: choosing the template', () => {
  it('--template default writes exactly what no --template writes', async () => {
    const [plain, explicit, equals] = [tempDir(), tempDir(), tempDir()];
    expect(await runInit([plain, '--name', 'same'], capture().io)).toBe(0);
    expect(await runInit([explicit, '--name', 'same', '--template', 'default'], capture().io)).toBe(0);
    expect(await runInit([equals, '--name', 'same', '--template=default'], capture().io)).toBe(0);
    const files = filesOf(plain);
    expect(files).not.toContain('src/ui/view.html');
    for (const other of [explicit, equals]) {
      expect(filesOf(other)).toEqual(files);
      for (const file of files) expect({ file, text: readFileSync(join(other, file), 'utf8') }).toEqual({ file, text: readFileSync(join(plain, file), 'utf8') });
    }
    expect(Object.keys(JSON.parse(readFileSync(join(plain, 'package.json'), 'utf8')).devDependencies)).not.toContain('esbuild');
  });

  it('--template=app works too', async () => {
    const dir = tempDir();
    expect(await runInit([dir, '--template=app'], capture().io)).toBe(0);
    expect(existsSync(join(dir, 'src/ui/view.ts'))).toBe(true);
  });

  it.each([
    [['x', '--template', 'nope'], /^mcpx: unknown template "nope" \(known: default, app\)$/],
    [['x', '--template=react'], /^mcpx: unknown template "react" \(known: default, app\)$/],
    [['x', '--template'], /^mcpx: --template needs a template name: default, app$/],
    [['x', '--template', '--force'], /^mcpx: --template needs a template name: default, app$/],
  ])('exits 2 with one mcpx: line for %j, writing nothing', async (argv, message) => {
    const out = capture();
    expect(await runInit(argv, out.io)).toBe(2);
    expect(out.stderr.trimEnd()).toMatch(message);
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(out.stdout).toBe('');
    expect(existsSync(join(process.cwd(), 'x'))).toBe(false);
  });

  it('names the templates in --help', () => {
    expect(INIT_USAGE).toContain('[--template default|app]');
    expect(INIT_USAGE).toMatch(/^ {2}default {2}/m);
    expect(INIT_USAGE).toMatch(/^ {2}app {6}.*MCP Apps view/m);
  });
});

describe('mcpx init --template app: versions', () => {
  it("pins the view's toolchain to this repository's own versions", () => {
    const rootDev = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies as Record<string, string>;
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    for (const [name, range] of Object.entries(APP_TOOLCHAIN)) {
      const locked = lock.packages[`node_modules/${name}`]!.version;
      // The repository's own range where it declares one (zod comes in through @modelcontextprotocol/client): the locked version, either way.
      expect({ name, range }).toEqual({ name, range: rootDev[name] ?? `^${locked}` });
    }
    // The peers the view's import of @modelcontextprotocol/ext-apps needs, besides @modelcontextprotocol/core, which client brings.
    const peers = JSON.parse(readFileSync(join(root, 'node_modules/@modelcontextprotocol/ext-apps/package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    const required = Object.keys(peers.peerDependencies).filter((name) => !peers.peerDependenciesMeta[name]?.optional);
    expect(required.sort()).toEqual(['@modelcontextprotocol/client', '@modelcontextprotocol/core', 'zod']);
  });
});
