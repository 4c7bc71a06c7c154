/**
 * The published route, end to end, against a real registry: Verdaccio on loopback holds the
 * packages this repository publishes (with a plain `npm publish -w ...`) and proxies every other
 * package from the registry this machine uses. In an empty folder outside the repository a user's
 * steps follow the README's "Getting started": `npx mcpx init demo`, `npm install`, `npm test`,
 * `npm start`, `npm run --silent start:stdio`, with the official SDK client calling the scaffold's
 * tool over HTTP and stdio. Then the scaffold is published and run as `npx -y demo`, its
 * Dockerfile's stages are followed without Docker, and fresh CommonJS and ESM projects install the
 * packages and use them. Last, `npx mcpx init app-demo --template app` (a tool with an MCP Apps
 * view) installs, builds its view with esbuild, passes its tests and serves the view over stdio. npm runs with its own userconfig and cache under a temp folder.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { followStages, parseDockerfile } from '../../cli/test/dockerfile';
import { freePort } from '../../cli/test/cli';
import { startRegistry, type LocalRegistry } from './local-registry';

const ROOT = realpathSync(join(__dirname, '..', '..', '..'));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string; private?: boolean };
const PUBLIC = workspaces.filter((dir) => !manifestOf(dir).private);
const PUBLIC_NAMES = PUBLIC.map((dir) => manifestOf(dir).name);
const VERSION = manifestOf('packages/mcpx').version;

let work: string;
let registry: LocalRegistry;
let env: NodeJS.ProcessEnv;
let project: string;
let demo: string;
let appDemo: string;
const children = new Set<ChildProcess>();

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok(command: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const result = await run(command, args, cwd, extraEnv);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** Starts a long-running command in its own process group (as a shell would), resolving once `pattern` shows in its output. */
async function startUntil(command: string, args: string[], cwd: string, pattern: RegExp, extraEnv: NodeJS.ProcessEnv = {}) {
  const child = spawn(command, args, { cwd, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exited.then(() => children.delete(child));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = pattern.exec(output);
      if (found) resolve(found);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(({ code }) => reject(new Error(`${command} ${args.join(' ')} exited (${code}) before printing ${pattern}:\n${output}`)));
  });
  return { child, match, exited, output: () => output };
}

/** Every file under `dir`, except node_modules. */
function projectFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.name === 'node_modules' ? [] : e.isDirectory() ? projectFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

async function callGreet(client: Client): Promise<string> {
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toContain('greet');
  const result = (await client.callTool({ name: 'greet', arguments: { name: 'Ada', times: 2 } })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return (result.content[0] as { text: string }).text;
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'mcpx-registry-')));
  if (!relative(ROOT, work).startsWith('..')) throw new Error(`the temp folder ${work} is inside the repository`);
  // A child npm inherits nothing from an npm that may be running this test (npm_config_*,
  // npm_package_*, INIT_CWD) nor this repository's bins on PATH.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'));
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((p) => p && !p.startsWith(ROOT))
    .join(delimiter);
  const npmConfig = (key: string) => execFileSync('npm', ['config', 'get', key], { cwd: work, env: { ...clean, PATH: path }, encoding: 'utf8' }).trim();
  const upstream = npmConfig('registry');
  const cafile = npmConfig('cafile');
  registry = await startRegistry(join(work, 'registry'), upstream, [...PUBLIC_NAMES, 'demo'], existsSync(cafile) ? cafile : undefined);
  env = {
    ...clean,
    PATH: path,
    npm_config_registry: registry.url,
    npm_config_userconfig: registry.userconfig,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  project = join(work, 'project');
  mkdirSync(project);
  demo = join(project, 'demo');
  appDemo = join(project, 'app-demo');
}, 60_000);

afterAll(async () => {
  for (const child of children) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the published route', () => {
  it('publishes every public package with a plain npm publish', async () => {
    expect(PUBLIC_NAMES.sort()).toEqual(['@mcpx/cli', '@mcpx/core', '@mcpx/http', '@mcpx/openapi', '@mcpx/otel', '@mcpx/proxy', '@mcpx/redis', '@mcpx/stdio', '@mcpx/testing', 'mcpx']);
    await ok('npm', ['publish', ...PUBLIC.flatMap((dir) => ['-w', dir]), '--registry', registry.url, '--userconfig', registry.userconfig], ROOT);
    for (const name of PUBLIC_NAMES) {
      const view = JSON.parse((await ok('npm', ['view', name, '--json'], work)).stdout) as { version: string; 'dist-tags': Record<string, string>; dist: { tarball: string } };
      expect({ name, version: view.version, latest: view['dist-tags'].latest }).toEqual({ name, version: VERSION, latest: VERSION });
      expect(view.dist.tarball.startsWith(registry.url)).toBe(true);
    }
  });

  it('npx mcpx init demo scaffolds the project, from the registry', async () => {
    const init = await ok('npx', ['mcpx', 'init', 'demo'], project);
    expect(init.stdout).toContain('Created demo in demo:');
    // npx fetched the command into its own cache, not from this repository.
    const npx = join(work, 'npm-cache', '_npx');
    expect(readdirSync(npx).some((d) => existsSync(join(npx, d, 'node_modules/mcpx/package.json')))).toBe(true);
    expect(JSON.parse(readFileSync(join(demo, 'package.json'), 'utf8')).dependencies['@mcpx/core']).toBe(`^${VERSION}`);
  });

  it('npm install takes everything from the registry; nothing points back into this repository', async () => {
    const install = await ok('npm', ['install'], demo);
    // Nothing in the tree asks for a newer Node than the README promises (this runs on Node 20).
    expect(`${install.stdout}${install.stderr}`).not.toContain('EBADENGINE');
    const lock = JSON.parse(readFileSync(join(demo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; link?: boolean }> };
    const installed = Object.entries(lock.packages).filter(([path]) => path !== '');
    expect(installed.length).toBeGreaterThan(100);
    expect(installed.filter(([, p]) => p.link || !p.resolved?.startsWith(registry.url)).map(([path]) => path)).toEqual([]);
    for (const name of ['@mcpx/core', '@mcpx/http', '@mcpx/stdio', '@mcpx/testing']) {
      const dir = join(demo, 'node_modules', name);
      expect({ name, symlink: lstatSync(dir).isSymbolicLink(), version: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version }).toEqual({
        name,
        symlink: false,
        version: VERSION,
      });
    }
    for (const file of projectFiles(demo)) {
      const text = readFileSync(file, 'utf8');
      expect({ file, root: text.includes(ROOT), work: text.includes('/work/'), fileLink: /"(file|link):/.test(text) }).toEqual({ file, root: false, work: false, fileLink: false });
    }
  });

  it('npm test passes', async () => {
    const tests = await ok('npm', ['test'], demo);
    expect(`${tests.stdout}${tests.stderr}`).toMatch(/Tests:\s+8 passed, 8 total/);
  });

  it("npm run manifest writes the registry's server.json with the project's own mcpx, and sets mcpName", async () => {
    await ok('npm', ['run', 'manifest', '--', '--name', 'io.github.demo-owner/demo'], demo);
    const serverJson = JSON.parse(readFileSync(join(demo, 'server.json'), 'utf8')) as Record<string, unknown>;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'packages/cli/schemas/server.schema.json'), 'utf8')) as object);
    expect(validate(serverJson) ? [] : validate.errors).toEqual([]);
    expect(serverJson).toMatchObject({
      name: 'io.github.demo-owner/demo',
      version: '0.1.0',
      packages: [{ registryType: 'npm', registryBaseUrl: 'https://registry.npmjs.org', identifier: 'demo', version: '0.1.0', transport: { type: 'stdio' } }],
    });
    expect(JSON.parse(readFileSync(join(demo, 'package.json'), 'utf8')).mcpName).toBe('io.github.demo-owner/demo');
    expect((await ok('npx', ['mcpx', 'manifest', '--check', '--name', 'io.github.demo-owner/demo'], demo)).stdout).toContain('are up to date');
  });

  it('npm start serves HTTP on PORT; the SDK client calls the tool; Ctrl-C stops it cleanly', async () => {
    const port = await freePort();
    const server = await startUntil('npm', ['start'], demo, /"url":"(http:\/\/[^"]+)"/, { PORT: String(port) });
    expect(server.match[1]).toBe(`http://127.0.0.1:${port}/mcp`);
    const client = new Client({ name: 'registry-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.match[1]!));
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'demo' });
    expect(await callGreet(client)).toBe('Hello, Ada!\nHello, Ada!');
    await transport.terminateSession();
    await client.close();
    // Ctrl-C in a terminal signals the whole foreground group: npm, its shell and the server.
    process.kill(-server.child.pid!, 'SIGINT');
    await server.exited;
    expect(server.output()).toMatch(/"msg":"stopped"/);
  });

  it('npm run --silent start:stdio serves stdio; the SDK client calls the tool', async () => {
    const transport = new StdioClientTransport({ command: 'npm', args: ['run', '--silent', 'start:stdio'], cwd: demo, env: env as Record<string, string>, stderr: 'pipe' });
    const errors: Error[] = [];
    const client = new Client({ name: 'registry-test', version: '1.0.0' });
    client.onerror = (err) => errors.push(err);
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'demo' });
    expect(await callGreet(client)).toBe('Hello, Ada!\nHello, Ada!');
    await client.close();
    // Nothing but protocol messages reached stdout.
    expect(errors).toEqual([]);
  });

  it('the scaffold publishes, and npx -y demo runs its bin over stdio', async () => {
    await ok('npm', ['publish'], demo);
    // What the MCP registry reads to check ownership: mcpName in the published version's metadata.
    expect((await ok('npm', ['view', 'demo@0.1.0', 'mcpName'], work)).stdout.trim()).toBe('io.github.demo-owner/demo');
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere);
    const transport = new StdioClientTransport({ command: 'npx', args: ['-y', 'demo'], cwd: elsewhere, env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'registry-test', version: '1.0.0' });
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'demo', version: '0.1.0' });
    expect(await callGreet(client)).toBe('Hello, Ada!\nHello, Ada!');
    await client.close();
  });

  it.each([
    [
      'commonjs',
      'check.js',
      "const { Server, Tool } = require('@mcpx/core');\nconst transport = require('@mcpx/core/transport');\nconst { connect, quietOptions } = require('@mcpx/testing');\nconst http = require('@mcpx/http');\nconst stdio = require('@mcpx/stdio');\nconst cli = require('@mcpx/cli');\n",
    ],
    [
      'module',
      'check.js',
      "import { Server, Tool } from '@mcpx/core';\nimport * as transport from '@mcpx/core/transport';\nimport { connect, quietOptions } from '@mcpx/testing';\nimport * as http from '@mcpx/http';\nimport * as stdio from '@mcpx/stdio';\nimport * as cli from '@mcpx/cli';\n",
    ],
  ])('a %s project installs the packages, imports them and serves a tool; its TypeScript resolves their types', async (type, file, imports) => {
    const dir = join(work, `consumer-${type}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${type}`, version: '1.0.0', private: true, type }));
    await ok('npm', ['install', ...PUBLIC_NAMES.filter((n) => n !== 'mcpx').map((n) => `${n}@${VERSION}`), '@types/node@20'], dir);
    // Plain JavaScript: the decorators applied by hand, a raw JSON Schema for the input.
    const body = `${imports}
class Echo { echo(input) { return 'echo: ' + input.text; } }
Tool({ description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } })(Echo.prototype, 'echo', Object.getOwnPropertyDescriptor(Echo.prototype, 'echo'));
Server({ name: 'echo', version: '1.0.0' })(Echo);
const kinds = { listen: typeof http.listen, serveStdio: typeof stdio.serveStdio, main: typeof cli.main, parseMessage: typeof transport.parseMessage };
connect(new Echo(), quietOptions()).then(async (client) => {
  const result = await client.callTool('echo', { text: 'hi' });
  client.close();
  process.stdout.write(JSON.stringify({ kinds, result }));
});
`;
    writeFileSync(join(dir, file), body);
    const out = await ok(process.execPath, [file], dir);
    expect(JSON.parse(out.stdout)).toEqual({
      kinds: { listen: 'function', serveStdio: 'function', main: 'function', parseMessage: 'function' },
      result: { content: [{ type: 'text', text: 'echo: hi' }] },
    });

    writeFileSync(
      join(dir, 'types.ts'),
      "import { Server, Tool, type RequestContext } from '@mcpx/core';\nimport { parseMessage, type MessageChannel } from '@mcpx/core/transport';\nimport { listen, type ListenOptions } from '@mcpx/http';\nimport { serveStdio } from '@mcpx/stdio';\nimport { connect } from '@mcpx/testing';\nimport { main } from '@mcpx/cli';\n" +
        'export const used: unknown[] = [Server, Tool, parseMessage, listen, serveStdio, connect, main];\nexport type Used = [RequestContext, MessageChannel, ListenOptions];\n',
    );
    const tsc = await run(
      process.execPath,
      [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck', 'types.ts'],
      dir,
    );
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
    // node10 resolution ignores `exports`: '@mcpx/core/transport' resolves through `typesVersions`.
    const node10 = await run(
      process.execPath,
      [TSC, '--noEmit', '--strict', '--module', 'commonjs', '--moduleResolution', 'node10', '--target', 'es2022', '--types', 'node', '--skipLibCheck', 'types.ts'],
      dir,
    );
    expect(`${node10.stdout}${node10.stderr}`).toBe('');
  });

  it("the scaffold's Dockerfile builds outside this repository, and its image runs with production dependencies only", async () => {
    const dockerfile = readFileSync(join(demo, 'Dockerfile'), 'utf8');
    const image = parseDockerfile(dockerfile);
    const context = join(work, 'docker-context');
    // What `docker build .` sends: the project without what .dockerignore leaves out.
    const ignored = readFileSync(join(demo, '.dockerignore'), 'utf8').split('\n').filter(Boolean);
    mkdirSync(context);
    for (const entry of readdirSync(demo)) if (!ignored.includes(entry)) cpSync(join(demo, entry), join(context, entry), { recursive: true });
    const app = await followStages(dockerfile, context, join(work, 'docker-stages'), env);
    for (const name of ['@mcpx/http', '@mcpx/stdio', 'pino']) expect({ name, present: existsSync(join(app, 'node_modules', name)) }).toEqual({ name, present: true });
    for (const name of ['jest', 'typescript', '@mcpx/testing', 'pino-pretty']) expect({ name, present: existsSync(join(app, 'node_modules', name)) }).toEqual({ name, present: false });

    const port = await freePort();
    const imageEnv = { PATH: env.PATH, ...image.env, PORT: String(port) };
    const [command, ...args] = image.command;
    const server = await startUntil(command === 'node' ? process.execPath : command!, args, app, /"msg":"serving MCP over Streamable HTTP"/, imageEnv);
    // Not a terminal and no pino-pretty: JSON lines.
    for (const line of server.output().trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ name: 'demo' });
    const [hcCommand, ...hcArgs] = image.healthcheck;
    await ok(hcCommand === 'node' ? process.execPath : hcCommand!, hcArgs, app, imageEnv);
    const client = new Client({ name: 'registry-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    await client.connect(transport);
    expect(await callGreet(client)).toBe('Hello, Ada!\nHello, Ada!');
    await transport.terminateSession();
    await client.close();
    server.child.kill((image.stopSignal ?? 'SIGTERM') as NodeJS.Signals);
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
  it('npx mcpx init app-demo --template app scaffolds the project with an MCP Apps view, and npm install takes it all from the registry', async () => {
    const init = await ok('npx', ['mcpx', 'init', 'app-demo', '--template', 'app'], project);
    expect(init.stdout).toContain('Created app-demo in app-demo:');
    expect(init.stdout).toContain('  src/ui/view.ts\n');
    const install = await ok('npm', ['install'], appDemo);
    expect(`${install.stdout}${install.stderr}`).not.toContain('EBADENGINE');
    const lock = JSON.parse(readFileSync(join(appDemo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; link?: boolean }> };
    const installed = Object.entries(lock.packages).filter(([path]) => path !== '');
    expect(installed.filter(([, p]) => p.link || !p.resolved?.startsWith(registry.url)).map(([path]) => path)).toEqual([]);
    for (const name of ['esbuild', '@modelcontextprotocol/ext-apps', '@modelcontextprotocol/client', '@modelcontextprotocol/core', 'zod']) {
      expect({ name, installed: existsSync(join(appDemo, 'node_modules', name, 'package.json')) }).toEqual({ name, installed: true });
    }
  });

  it('the app project builds: esbuild bundles the view into one HTML file next to the compiled server', async () => {
    const build = await ok('npm', ['run', 'build'], appDemo);
    expect(build.stderr).toMatch(/built dist\/ui\/view\.html \(\d+ kB\)/);
    const html = readFileSync(join(appDemo, 'dist/ui/view.html'), 'utf8');
    expect(html).toContain('<script type="module">');
    expect(html).not.toMatch(/<script[^>]*\ssrc=/);
    expect(html).toContain('ui/initialize');
    for (const file of ['server.js', 'main.js', 'main-stdio.js']) expect({ file, built: existsSync(join(appDemo, 'dist', file)) }).toEqual({ file, built: true });
  });

  it("the app project's npm test passes", async () => {
    const tests = await ok('npm', ['test'], appDemo);
    expect(`${tests.stdout}${tests.stderr}`).toMatch(/Tests:\s+10 passed, 10 total/);
  });

  it('the app project serves its view over stdio to an SDK client that renders views, and the view-only tool answers', async () => {
    const transport = new StdioClientTransport({ command: 'npm', args: ['run', '--silent', 'start:stdio'], cwd: appDemo, env: env as Record<string, string>, stderr: 'pipe' });
    const errors: Error[] = [];
    const mimeTypes = ['text/html;profile=mcp-app'];
    const client = new Client({ name: 'registry-test', version: '1.0.0' }, { capabilities: { experimental: { 'io.modelcontextprotocol/ui': { mimeTypes } } } });
    client.onerror = (err) => errors.push(err);
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => [t.name, (t._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri])).toEqual([
      ['counter', 'ui://app-demo/counter'],
      ['add', 'ui://app-demo/counter'],
    ]);
    const view = await client.readResource({ uri: 'ui://app-demo/counter' });
    expect(view.contents).toEqual([expect.objectContaining({ uri: 'ui://app-demo/counter', mimeType: mimeTypes[0], text: readFileSync(join(appDemo, 'dist/ui/view.html'), 'utf8') })]);
    const added = (await client.callTool({ name: 'add', arguments: { by: 2 } })) as CallToolResult;
    expect(added.structuredContent).toEqual({ count: 2 });
    await client.close();
    // Nothing but protocol messages reached stdout: the view's build writes to stderr.
    expect(errors).toEqual([]);
  });
});
