import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INIT_USAGE, isValidPackageName, packageNameFromDir, runInit } from '../src/init';
import { TOOLCHAIN } from '../src/init-package-json';
import { render, targetPath } from '../src/init-templates';
import { freePort } from './cli';
import { parseDockerfile } from './dockerfile';

/**
 * `mcpx init` as a user runs it: scaffold a project, then build it, run its own tests and start
 * its stdio and HTTP entries. The project is written inside the repo (.tmp-init-*, git-ignored, not
 * under jest's roots) so @mcpx/* and the toolchain resolve from the repo's node_modules without an
 * install; the @mcpx packages must be built first (`npm test` does).
 */
const root = join(__dirname, '..', '..', '..');
const tscBin = join(root, 'node_modules/typescript/bin/tsc');
const jestBin = join(root, 'node_modules/jest/bin/jest.js');
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

function run(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, FORCE_COLOR: '0', NODE_ENV: 'test' } });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

const version = (pkg: string) => `^${JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8')).version}`;

/** Collects a child's output and resolves when `pattern` shows up in it (rejects if the child exits first). */
function waitForOutput(child: ReturnType<typeof spawn>, pattern: RegExp): { output: () => string; match: Promise<RegExpExecArray> } {
  let output = '';
  const match = new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = pattern.exec(output);
      if (found) resolve(found);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited (${code}) before printing ${pattern}:\n${output}`)));
  });
  return { output: () => output, match };
}

describe('mcpx init: the scaffolded project', () => {
  let dir: string;
  let out: ReturnType<typeof capture>;

  beforeAll(async () => {
    for (const pkg of ['core', 'http', 'stdio', 'testing']) {
      if (!existsSync(join(root, 'packages', pkg, 'dist/index.js'))) throw new Error(`packages/${pkg} is not built: run npm run build first`);
    }
    dir = tempDir();
    out = capture();
    expect(await runInit([dir, '--name', '@acme/hello-mcp'], out.io)).toBe(0);
  });

  it('writes every file, with the placeholders filled in and the repo versions', () => {
    const files = [
      'package.json',
      'tsconfig.json',
      'tsconfig.test.json',
      'jest.config.js',
      'src/server.ts',
      'src/logger.ts',
      'src/main.ts',
      'src/main-stdio.ts',
      'test/server.test.ts',
      'Dockerfile',
      '.dockerignore',
      '.gitignore',
      'README.md',
    ];
    for (const file of files) {
      expect(existsSync(join(dir, file))).toBe(true);
      expect(readFileSync(join(dir, file), 'utf8')).not.toMatch(/\{\{|\}\}/);
      expect(out.stdout).toContain(`  ${file}\n`);
    }
    expect(out.stderr).toBe('');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const coreDeps = JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')).dependencies;
    const cliDeps = JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8')).dependencies;
    const rootDev = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies;
    expect(pkg.name).toBe('@acme/hello-mcp');
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['build', 'test', 'start', 'start:stdio', 'dev', 'manifest']));
    expect(pkg.dependencies).toEqual({
      '@mcpx/core': version('core'),
      '@mcpx/http': version('http'),
      '@mcpx/stdio': version('stdio'),
      'class-transformer': coreDeps['class-transformer'],
      'class-validator': coreDeps['class-validator'],
      pino: cliDeps.pino,
      'reflect-metadata': coreDeps['reflect-metadata'],
    });
    expect(pkg.optionalDependencies).toEqual({ 'pino-pretty': cliDeps['pino-pretty'] });
    expect(pkg.devDependencies).toEqual({
      '@mcpx/testing': version('testing'),
      mcpx: version('mcpx'),
      '@types/jest': rootDev['@types/jest'],
      '@types/node': rootDev['@types/node'],
      jest: rootDev.jest,
      'ts-jest': rootDev['ts-jest'],
      'ts-node': rootDev['ts-node'],
      typescript: rootDev.typescript,
    });
    const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')).compilerOptions;
    expect(tsconfig).toMatchObject({ strict: true, experimentalDecorators: true, emitDecoratorMetadata: true });
    expect(readFileSync(join(dir, 'src/server.ts'), 'utf8')).toContain("name: '@acme/hello-mcp'");
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('docker build -t acme-hello-mcp .');
  });

  it('is a package that can be published, with its stdio entry as its bin', () => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.private).toBeUndefined();
    expect(pkg).toMatchObject({ version: '0.1.0', main: 'dist/server.js', bin: { 'hello-mcp': 'dist/main-stdio.js' }, files: ['dist'], engines: { node: '>=20' } });
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(readFileSync(join(dir, 'src/main-stdio.ts'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    for (const client of [
      'claude_desktop_config.json',
      'claude mcp add hello-mcp -- npx -y @acme/hello-mcp',
      'claude mcp add --transport http hello-mcp http://127.0.0.1:3000/mcp',
      '.cursor/mcp.json',
      '.vscode/mcp.json',
    ]) {
      expect(readme).toContain(client);
    }
  });

  it('has a two-stage Dockerfile on Node 24 whose runtime holds production dependencies only, root-owned, run as node', () => {
    const text = readFileSync(join(dir, 'Dockerfile'), 'utf8');
    const image = parseDockerfile(text);
    expect(image.bases).toEqual(['node:24-slim', 'node:24-slim']);
    const installs = image.lines.filter((line) => /^RUN .*npm (ci|install)/.test(line));
    expect(installs).toHaveLength(1);
    for (const command of installs[0]!.split(/;|&&|\bthen\b|\belse\b/).filter((c) => /npm (ci|install)/.test(c))) {
      expect(command).toContain('--omit=dev');
      expect(command).toContain('--omit=optional');
    }
    // Nothing is handed to the user that runs the server: the code stays root's.
    expect(text).not.toMatch(/--chown|chown |chmod /);
    expect(image.lines).toContain('COPY --from=build /app/dist ./dist');
    expect(image.user).toBe('node');
    expect(image.command).toEqual(['node', 'dist/main.js']);
    expect(image.env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '3000' });
    expect(image.healthcheck.join(' ')).toContain('/healthz');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('docker build -t acme-hello-mcp .');
  });

  it('builds with its own tsconfig, and its own tests pass', async () => {
    const build = await run([tscBin, '-p', dir], root);
    expect(build.output).toBe('');
    expect(build.code).toBe(0);
    expect(readdirSync(join(dir, 'dist')).sort()).toEqual(expect.arrayContaining(['main.js', 'main-stdio.js', 'server.js', 'logger.js']));
    expect(readFileSync(join(dir, 'dist/main-stdio.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);

    const tests = await run([jestBin, '--rootDir', dir, '--ci'], dir);
    expect(tests.output).toMatch(/Tests:\s+8 passed, 8 total/);
    expect(tests.code).toBe(0);
  }, 60_000);

  it('serves over stdio from the compiled entry', async () => {
    const child = spawn(process.execPath, [join(dir, 'dist/main-stdio.js')], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    const firstLine = new Promise<string>((resolve) =>
      child.stdout.on('data', (c) => {
        stdout += c;
        if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'init-test', version: '0' } } })}\n`,
    );
    const reply = JSON.parse(await firstLine);
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', serverInfo: { name: '@acme/hello-mcp' } } });
    expect(reply.result.capabilities).toEqual(expect.objectContaining({ tools: expect.any(Object), resources: expect.any(Object), prompts: expect.any(Object) }));
    child.stdin.end();
    expect(await exited).toBe(0);
  });

  it("runs the image's command with the image's environment: JSON logs, /healthz, the HEALTHCHECK, exit 0 on SIGTERM", async () => {
    const image = parseDockerfile(readFileSync(join(dir, 'Dockerfile'), 'utf8'));
    const port = await freePort();
    // Only the image's environment (and PATH), with a free port: nothing leaks in from the test runner.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...image.env, PORT: String(port) };
    const [command, ...args] = image.command;
    const child = spawn(command === 'node' ? process.execPath : command!, args, { cwd: dir, env });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const started = waitForOutput(child, /"url":"(http:\/\/[^"]+)\/mcp".*\n/);
      const base = (await started.match)[1]!;
      expect(base).toBe(`http://127.0.0.1:${port}`);
      // Not a terminal: every line is pino JSON from the server's own logger.
      const lines = started
        .output()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { name?: string; msg?: string });
      expect(lines.every((line) => line.name === '@acme/hello-mcp')).toBe(true);
      expect(lines.map((line) => line.msg)).toContain('serving MCP over Streamable HTTP');
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      const [hcCommand, ...hcArgs] = image.healthcheck;
      const hc = spawnSync(hcCommand === 'node' ? process.execPath : hcCommand!, hcArgs, { env, timeout: 5000 });
      expect({ status: hc.status, stderr: String(hc.stderr) }).toEqual({ status: 0, stderr: '' });
      child.kill((image.stopSignal ?? 'SIGTERM') as NodeJS.Signals);
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('logs coloured lines on a terminal, and JSON on one when CI is set', async () => {
    // `script` gives the server a pseudo-terminal as stdout; Ctrl-C through it stops the server.
    // `exec` makes node the terminal's foreground process: without it a shell that does not exec its
    // last command (dash, which `script` runs when SHELL is unset) sits in between and dies of SIGINT.
    const onTerminal = (extra: Record<string, string>) => {
      const env: Record<string, string | undefined> = {
        ...process.env,
        SHELL: undefined,
        PORT: '0',
        HOST: '127.0.0.1',
        NO_COLOR: undefined,
        FORCE_COLOR: undefined,
        CI: undefined,
        ...extra,
      };
      const child = spawn('script', ['-qefc', `exec ${JSON.stringify(process.execPath)} dist/main.js`, '/dev/null'], { cwd: dir, env });
      const started = waitForOutput(child, /serving MCP over Streamable HTTP.*\r?\n(?:.*\r?\n)?/);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { child, started, exited };
    };
    const pretty = onTerminal({});
    try {
      await pretty.started.match;
      // eslint-disable-next-line no-control-regex -- an ANSI colour escape is what it looks for
      expect(pretty.started.output()).toMatch(/\x1b\[\d+m/);
      expect(pretty.started.output()).toMatch(/INFO.*\(@acme\/hello-mcp\).*serving MCP over Streamable HTTP/);
      expect(pretty.started.output()).not.toContain('"level"');
      pretty.child.stdin.write('\x03');
      expect(await pretty.exited).toBe(0);
    } finally {
      pretty.child.kill('SIGKILL');
    }

    const ci = onTerminal({ CI: 'true' });
    try {
      await ci.started.match;
      expect(ci.started.output()).toMatch(/^\{"level":30,.*"msg":"serving MCP over Streamable HTTP"\}/m);
      ci.child.stdin.write('\x03');
      expect(await ci.exited).toBe(0);
    } finally {
      ci.child.kill('SIGKILL');
    }
  });

  it('writes its registry server.json with mcpx manifest once it names its GitHub repository', async () => {
    const packagePath = join(dir, 'package.json');
    const pkg = JSON.parse(readFileSync(packagePath, 'utf8'));
    writeFileSync(packagePath, `${JSON.stringify({ ...pkg, repository: 'github:acme/hello-mcp' }, null, 2)}\n`);
    const manifest = await run([join(root, 'packages/cli/dist/bin.js'), 'manifest'], dir);
    expect(manifest.output).toBe(`wrote ${join(dir, 'server.json')} (io.github.acme/hello-mcp 0.1.0), and mcpName in ${packagePath}\n`);
    const serverJson = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'));
    expect(serverJson).toMatchObject({
      name: 'io.github.acme/hello-mcp',
      version: '0.1.0',
      packages: [{ registryType: 'npm', identifier: '@acme/hello-mcp', version: '0.1.0', transport: { type: 'stdio' } }],
      repository: { url: 'https://github.com/acme/hello-mcp', source: 'github' },
    });
    expect(JSON.parse(readFileSync(packagePath, 'utf8')).mcpName).toBe('io.github.acme/hello-mcp');
    expect((await run([join(root, 'packages/cli/dist/bin.js'), 'manifest', '--check'], dir)).code).toBe(0);
  });
});

describe('mcpx init: arguments', () => {
  it('refuses a non-empty directory without --force, and writes into it with --force', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'keep.txt'), 'mine');
    const refused = capture();
    expect(await runInit([dir], refused.io)).toBe(2);
    expect(refused.stderr).toMatch(/^mcpx: .* is not empty; .*--force.*\n$/);
    expect(refused.stderr.split('\n')).toHaveLength(2);
    expect(readdirSync(dir)).toEqual(['keep.txt']);

    const forced = capture();
    expect(await runInit([dir, '--force'], forced.io)).toBe(0);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('mine');
    const name = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name;
    expect(name).toBe(packageNameFromDir(dir));
    expect(name).toMatch(/^tmp-init-/);
  });

  it('creates a directory that does not exist yet', async () => {
    const dir = join(tempDir(), 'nested', 'my server');
    const out = capture();
    expect(await runInit([dir], out.io)).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name).toBe('my-server');
  });

  it.each([
    [[], /^mcpx: init needs a directory/],
    [['a', 'b'], /^mcpx: init takes one directory/],
    [['x', '--name'], /^mcpx: --name needs a package name/],
    [['x', '--bogus'], /^mcpx: unknown option --bogus/],
    [['x', '--name', 'Not Valid'], /^mcpx: "Not Valid" is not a valid npm package name/],
  ])('exits 2 with one mcpx: line for %j', async (argv, message) => {
    const out = capture();
    expect(await runInit(argv as string[], out.io)).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(out.stdout).toBe('');
  });

  it('exits 2 when the target is a file', async () => {
    const file = join(tempDir(), 'file.txt');
    writeFileSync(file, '');
    const out = capture();
    expect(await runInit([file], out.io)).toBe(2);
    expect(out.stderr).toMatch(/^mcpx: .*file\.txt exists and is not a directory\n$/);
  });

  it('prints help with --help and -h', async () => {
    for (const flag of ['--help', '-h']) {
      const out = capture();
      expect(await runInit([flag], out.io)).toBe(0);
      expect(out.stdout).toBe(INIT_USAGE);
      expect(out.stderr).toBe('');
    }
    expect(INIT_USAGE).toMatch(/^Usage: mcpx init <dir> \[--name <package-name>\] \[--force\]/);
  });
});

describe('mcpx init: helpers', () => {
  it("pins the scaffold's toolchain to this repository's own devDependencies", () => {
    const rootDev = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies as Record<string, string>;
    for (const [name, range] of Object.entries(TOOLCHAIN)) expect({ name, range }).toEqual({ name, range: rootDev[name] });
  });

  it('derives and checks package names', () => {
    expect(packageNameFromDir('/x/My Cool_Server')).toBe('my-cool_server');
    expect(packageNameFromDir('/x/.hidden')).toBe('hidden');
    expect(isValidPackageName('@scope/name')).toBe(true);
    expect(isValidPackageName('Upper')).toBe(false);
    expect(isValidPackageName('')).toBe(false);
    expect(isValidPackageName('_private')).toBe(false);
  });

  it('maps template paths and refuses unknown placeholders', () => {
    expect(targetPath('gitignore')).toBe('.gitignore');
    expect(targetPath('test/server.test.ts.tmpl')).toBe('test/server.test.ts');
    expect(targetPath('src/server.ts')).toBe('src/server.ts');
    expect(render('a {{name}} b', { name: 'x' })).toBe('a x b');
    expect(() => render('{{nope}}', { name: 'x' }, 'f.ts')).toThrow('f.ts: unknown placeholder {{nope}}');
  });
});
