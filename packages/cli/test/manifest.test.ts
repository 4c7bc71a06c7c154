/**
 * `mcpx manifest`: the MCP registry's server.json written from package.json and the server, checked
 * against the registry's schema (the copy the CLI ships, byte-identical to the published one), with
 * package.json's mcpName set; `--check` failing once the code or the declared environment moved on.
 * Projects live inside the repo (.tmp-manifest-*, git-ignored) so their entries resolve @mcpx/core.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { BIN, EXAMPLE_JS, ROOT, cleanEnv, requireBuild } from './cli';

const SCHEMA_PATH = join(ROOT, 'packages/cli/schemas/server.schema.json');
/** The sha256 of https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json. */
const SCHEMA_SHA256 = '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0';
const made: string[] = [];

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(ROOT, '.tmp-manifest-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function manifest(dir: string, args: string[] = []) {
  requireBuild();
  const r = spawnSync(process.execPath, [BIN, 'manifest', ...args], { cwd: dir, env: cleanEnv(), encoding: 'utf8', timeout: 50_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');

function validate(document: unknown): string[] {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const check = ajv.compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
  return check(document) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** A server in plain JavaScript whose tools are the names given (an edit "adds a tool"). */
const tinyServer = (tools: string[]) => `const { McpServer, Server } = require('@mcpx/core');
class Tiny extends McpServer {
  onServerInit() {
    for (const name of ${JSON.stringify(tools)}) this.registry.addTool({ name, description: 'Says ' + name, handler: () => name });
  }
}
Server({ name: 'tiny', version: '2.1.0', title: 'Tiny', description: 'A tiny server for the manifest tests' })(Tiny);
module.exports = { Tiny };
`;

const tinyPackage = {
  name: '@acme/tiny-mcp',
  version: '2.1.0',
  description: 'Tiny',
  main: 'server.js',
  bin: { 'tiny-mcp': 'server.js' },
  repository: { type: 'git', url: 'git+https://github.com/acme/tiny-mcp.git' },
  mcpx: { env: { TINY_TOKEN: { description: 'The API token', required: true, secret: true }, TINY_REGION: { description: 'Where', default: 'eu' } } },
};

it('ships the registry schema unmodified', () => {
  expect(createHash('sha256').update(readFileSync(SCHEMA_PATH)).digest('hex')).toBe(SCHEMA_SHA256);
});

it('writes server.json for an npm package: its name from the GitHub repository, the stdio package with the declared environment', () => {
  // Four spaces, as some editors keep it: the file keeps them.
  const dir = project({ 'package.json': `${JSON.stringify(tinyPackage, null, 4)}\n`, 'server.js': tinyServer(['greet', 'add']) });
  const r = manifest(dir);
  expect(r).toMatchObject({ status: 0, stderr: '' });
  expect(r.stdout).toBe(`wrote ${join(dir, 'server.json')} (io.github.acme/tiny-mcp 2.1.0), and mcpName in ${join(dir, 'package.json')}\n`);
  const written = JSON.parse(read(dir, 'server.json')) as object;
  expect(written).toEqual({
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: 'io.github.acme/tiny-mcp',
    title: 'Tiny',
    description: 'A tiny server for the manifest tests',
    version: '2.1.0',
    repository: { url: 'https://github.com/acme/tiny-mcp', source: 'github' },
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: '@acme/tiny-mcp',
        version: '2.1.0',
        transport: { type: 'stdio' },
        environmentVariables: [
          { name: 'TINY_REGION', description: 'Where', default: 'eu' },
          { name: 'TINY_TOKEN', description: 'The API token', isRequired: true, isSecret: true },
        ],
      },
    ],
    _meta: {
      'io.modelcontextprotocol.registry/publisher-provided': {
        tool: 'mcpx manifest',
        serverInfo: { name: 'tiny', version: '2.1.0' },
        tools: ['add', 'greet'],
        prompts: [],
        resourceTemplates: [],
      },
    },
  });
  expect(validate(written)).toEqual([]);
  // mcpName after "version", everything else as it was.
  const { name, version, ...rest } = tinyPackage;
  expect(read(dir, 'package.json')).toBe(`${JSON.stringify({ name, version, mcpName: 'io.github.acme/tiny-mcp', ...rest }, null, 4)}\n`);
  // Written once, it is up to date, and writing again changes nothing.
  expect(manifest(dir, ['--check'])).toMatchObject({ status: 0, stdout: `${join(dir, 'server.json')} and mcpName are up to date\n` });
});

it('fails --check, naming what differs, once a tool or an environment variable is added, or mcpName changed', () => {
  const dir = project({ 'package.json': `${JSON.stringify(tinyPackage, null, 2)}\n`, 'server.js': tinyServer(['greet']) });
  expect(manifest(dir).status).toBe(0);
  const serverJson = read(dir, 'server.json');

  writeFileSync(join(dir, 'server.js'), tinyServer(['greet', 'farewell']));
  const tool = manifest(dir, ['--check']);
  expect(tool.status).toBe(1);
  expect(tool.stderr).toBe(
    `mcpx: manifest out of date: ${join(dir, 'server.json')} differs at _meta.io.modelcontextprotocol.registry/publisher-provided.tools (run mcpx manifest to write them)\n`,
  );
  expect(read(dir, 'server.json')).toBe(serverJson); // --check writes nothing

  writeFileSync(join(dir, 'server.js'), tinyServer(['greet']));
  const pkg = JSON.parse(read(dir, 'package.json')) as typeof tinyPackage & { mcpx: { env: Record<string, object> } };
  pkg.mcpx.env.TINY_DEBUG = { description: 'Verbose logs', format: 'boolean' };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const env = manifest(dir, ['--check']);
  expect(env.status).toBe(1);
  expect(env.stderr).toContain('differs at packages');

  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ ...tinyPackage, mcpName: 'io.github.someone/else' }, null, 2)}\n`);
  const name = manifest(dir, ['--check', '--name', 'io.github.acme/tiny-mcp']);
  expect(name.status).toBe(1);
  expect(name.stderr).toContain(`${join(dir, 'package.json')} "mcpName" is not "io.github.acme/tiny-mcp"`);
  expect(manifest(dir, ['--check', '--name', 'io.github.acme/tiny-mcp']).status).toBe(1);
});

it('describes the example server as a deployment: remotes from --url, its templates and prompts, not the notes it lists', () => {
  const examplePackage = JSON.parse(readFileSync(join(ROOT, 'apps/example/package.json'), 'utf8')) as object;
  const dir = project({ 'package.json': `${JSON.stringify(examplePackage, null, 2)}\n` });
  const r = manifest(dir, [EXAMPLE_JS, '--name', 'io.github.mcpx/notes', '--url', 'https://notes.example.com/mcp']);
  expect(r.status).toBe(0);
  // Private: no npm package to install, said on stderr.
  expect(r.stderr).toBe('mcpx: note: no npm package entry: package.json is private or has no "bin" (a stdio command to run)\n');
  const written = JSON.parse(read(dir, 'server.json')) as Record<string, any>;
  expect(validate(written)).toEqual([]);
  expect(written).toMatchObject({ name: 'io.github.mcpx/notes', title: 'Notes', description: 'Create, search and read short Markdown notes.', version: '0.1.0' });
  expect(written.remotes).toEqual([{ type: 'streamable-http', url: 'https://notes.example.com/mcp' }]);
  expect(written.packages).toBeUndefined();
  expect(written._meta['io.modelcontextprotocol.registry/publisher-provided']).toEqual({
    tool: 'mcpx manifest',
    serverInfo: { name: 'mcpx-notes', version: '0.1.0' },
    tools: ['append', 'create', 'delete', 'export', 'search'],
    prompts: ['summarize'],
    resourceTemplates: ['notes://notes/{id}', 'notes://tags/{tag}', 'skill://{+path}'],
  });
});

it.each([
  [{ ...tinyPackage, repository: undefined }, [], 2, /^mcpx: cannot derive the registry name: give --name/],
  [tinyPackage, ['--name', 'tiny'], 2, /^mcpx: --name must be a reverse-DNS namespace and a name, e.g. io.github.acme\/notes, got "tiny"/],
  [{ ...tinyPackage, version: '^2.1.0' }, [], 2, /^mcpx: package.json "version" must be an exact version such as 1.2.0, got "\^2.1.0"/],
  [{ ...tinyPackage, private: true }, [], 2, /^mcpx: nothing a client could run: publish the package with a "bin" for stdio, or give the URL/],
  [{ ...tinyPackage, mcpx: { env: { 'BAD-NAME': { description: 'x' } } } }, [], 2, /^mcpx: package.json "mcpx.env.BAD-NAME": not an environment variable name/],
  [{ ...tinyPackage, mcpx: { env: { TOKEN: {} } } }, [], 2, /^mcpx: package.json "mcpx.env.TOKEN" needs a "description"/],
  [tinyPackage, ['--url', 'ftp://x'], 2, /^mcpx: --url must be the http\(s\) URL of the MCP endpoint, got "ftp:\/\/x"/],
])('refuses case %#: one line, exit 2, nothing written', (pkg, args, status, message) => {
  const dir = project({ 'package.json': `${JSON.stringify(pkg, null, 2)}\n`, 'server.js': tinyServer(['greet']) });
  const before = read(dir, 'package.json');
  const r = manifest(dir, args as string[]);
  expect(r.status).toBe(status);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(read(dir, 'package.json')).toBe(before);
  expect(() => read(dir, 'server.json')).toThrow();
});

it('shortens a long description to the registry limit at a word, and says so', () => {
  const long = 'Searches, files and summarises the support tickets of every team in the company, with their history and owners';
  const dir = project({
    'package.json': `${JSON.stringify({ ...tinyPackage, description: long }, null, 2)}\n`,
    'server.js': tinyServer(['greet']).replace("description: 'A tiny server for the manifest tests'", ''),
  });
  const r = manifest(dir);
  expect(r.status).toBe(0);
  expect(r.stderr).toBe("mcpx: note: description shortened to the registry's 100 characters\n");
  const { description } = JSON.parse(read(dir, 'server.json')) as { description: string };
  expect(description).toBe('Searches, files and summarises the support tickets of every team in the company, with their history…');
  expect(description.length).toBeLessThanOrEqual(100);
});
