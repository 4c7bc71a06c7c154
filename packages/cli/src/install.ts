import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parse, pick, toHttpUrl } from './args';
import { CliError } from './errors';
import { INSTALL_HELP } from './help';
import { isValidPackageName } from './init';
import { CLIENT_NAMES, clientOf, configFile, genericEntry, type Client, type ServerSpec, type Where } from './install-clients';
import { declaredEnv, npmMcpx, withRequired, type EnvIo, type EnvSource } from './install-env';
import { readText, withEntry, withoutEntry, writeText } from './install-file';

const INSTALL_OPTIONS = {
  client: { type: 'string' },
  name: { type: 'string' },
  url: { type: 'string' },
  env: { type: 'string', multiple: true },
  force: { type: 'boolean' },
  print: { type: 'boolean' },
  workspace: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const UNINSTALL_OPTIONS = {
  client: { type: 'string' },
  workspace: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What clients accept as a server's name everywhere (some build tool names from it). */
const SERVER_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENTRY_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);

/** A built entry on this machine, and the package.json that declares its environment. */
interface LocalEntry {
  file: string;
  name: string;
  manifest?: string;
}

/** The machine as the clients see it, the terminal to ask on, and the registry to look packages up in. */
export type Host = Where & EnvIo;

function here(): Host {
  return { platform: process.platform, env: process.env, home: homedir(), cwd: process.cwd(), input: process.stdin, output: process.stdout, lookup: npmMcpx };
}

/**
 * `mcpx install [ENTRY|PACKAGE] --client NAME`: puts one server into a client's configuration
 * file (or prints the entry with --print), leaving everything else in the file as it was.
 */
export async function runInstall(argv: string[], host: Host = here()): Promise<number> {
  const { values, positionals } = parse('install', argv, INSTALL_OPTIONS);
  if (values.help) {
    process.stdout.write(INSTALL_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new CliError(`install takes one entry file or package, got ${positionals.length}: ${positionals.join(' ')}`);
  const { spec: bare, name, source } = serverOf(positionals[0], values, host);

  // The usage errors come first: nobody should type a secret for a command that then fails on a flag.
  if (values.print) {
    // Nothing is written: the flags that choose or guard a file would be silently ignored.
    for (const flag of ['workspace', 'force'] as const) if (values[flag]) throw new CliError(`--${flag} applies to writing a file, not to --print`);
    const client = values.client === undefined ? undefined : clientOf(values.client as string);
    const spec = await withDeclaredEnv(bare, source, name, host);
    const entry = client ? client.entry(spec) : genericEntry(spec);
    process.stdout.write(`${JSON.stringify({ [client?.key ?? 'mcpServers']: { [name]: entry } }, null, 2)}\n`);
    return 0;
  }

  const client = requiredClient(values.client, 'install');
  const file = configFile(client, host, values.workspace === true);
  const before = readText(file);
  const entry = client.entry(await withDeclaredEnv(bare, source, name, host));
  const { text, change } = withEntry(before ?? '', { key: client.key, name, entry, force: values.force === true, jsonc: client.jsonc, path: file });
  if (change === 'unchanged') {
    process.stdout.write(`"${name}" is already installed for ${client.title} in ${file}: nothing changed\n`);
    return 0;
  }
  const backup = writeText(file, text, before !== undefined);
  process.stdout.write(`${change === 'replaced' ? 'replaced' : 'installed'} "${name}" for ${client.title} in ${file} ${backup ? `(backup: ${backup})` : '(new file)'}\n`);
  return 0;
}

/** `mcpx uninstall NAME --client NAME`: takes the entry out again, the rest of the file untouched. */
export async function runUninstall(argv: string[], where: Where = here()): Promise<number> {
  const { values, positionals } = parse('uninstall', argv, UNINSTALL_OPTIONS);
  if (values.help) {
    process.stdout.write(INSTALL_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new CliError(`uninstall takes the server's name, e.g. mcpx uninstall notes --client cursor${positionals.length ? `, got ${positionals.join(' ')}` : ''}`);
  const name = serverName(positionals[0]!, 'the server name');
  const client = requiredClient(values.client, 'uninstall');
  const file = configFile(client, where, values.workspace === true);
  const before = readText(file);
  if (before === undefined) throw new CliError(`"${name}" is not installed for ${client.title}: ${file} does not exist`, 1);
  const text = withoutEntry(before, { key: client.key, name, jsonc: client.jsonc, path: file });
  const backup = writeText(file, text, true);
  process.stdout.write(`removed "${name}" for ${client.title} from ${file} (backup: ${backup})\n`);
  return 0;
}

function requiredClient(value: string | boolean | undefined, command: string): Client {
  if (typeof value === 'string') return clientOf(value);
  throw new CliError(`${command} needs --client: ${CLIENT_NAMES.join(', ')} (or --print to show the entry for another client)`);
}

function serverName(name: string, from: string): string {
  if (SERVER_NAME.test(name)) return name;
  throw new CliError(`${from} must be 1 to 64 letters, digits, "-", "_" or ".", got "${name}"${from === '--name' ? '' : ' (choose one with --name)'}`);
}

/**
 * A stdio server's environment: --env and the required variables its package.json declares (asked
 * for on a terminal). A server at --url has its own environment: nothing to ask.
 */
async function withDeclaredEnv(spec: ServerSpec, source: EnvSource | undefined, name: string, host: Host): Promise<ServerSpec> {
  if (spec.kind === 'http') return spec;
  const env = await withRequired(spec.env, await declaredEnv(source, host, host.cwd), host, name);
  return env ? { ...spec, env } : spec;
}

/** The server to install, its name, and where it declares its environment: from --url, a path, a package name, or the current package. */
function serverOf(target: string | undefined, values: Record<string, string | boolean | string[] | undefined>, where: Where): { spec: ServerSpec; name: string; source?: EnvSource } {
  const env = envOf(values.env as string[] | undefined);
  const named = values.name as string | undefined;
  const url = toHttpUrl(pick(values.url as string | undefined, 'url', [], where.env));
  if (url !== undefined) {
    if (target !== undefined) throw new CliError(`--url installs a running server: give no entry file or package with it (got ${target})`);
    if (env) throw new CliError('--env sets the environment of a server the client starts; a server at --url has its own');
    return { spec: { kind: 'http', url }, name: serverName(named ?? nameOfUrl(url), named ? '--name' : `the name taken from ${url}`) };
  }
  const local = target === undefined ? packageEntry(where.cwd) : localEntry(target, where.cwd);
  if (local) {
    const spec: ServerSpec = { kind: 'stdio', command: 'node', args: [local.file], ...(env && { env }) };
    return { spec, name: serverName(named ?? local.name, named ? '--name' : `the name "${local.name}"`), source: local.manifest ? { kind: 'project', manifest: local.manifest } : undefined };
  }
  const pkg = packageSpec(target!);
  const spec: ServerSpec = { kind: 'stdio', command: 'npx', args: ['-y', target!], ...(env && { env }) };
  return { spec, name: serverName(named ?? pkg, named ? '--name' : `the name "${pkg}"`), source: { kind: 'published', spec: target! } };
}

/** A server's name from its URL's host (`notes.acme.dev` → `notes`); loopback and addresses need --name. */
function nameOfUrl(url: string): string {
  const host = new URL(url).hostname;
  if (host === 'localhost' || /^[\d.]+$/.test(host) || host.startsWith('[')) throw new CliError(`name the server at ${url} with --name`);
  return host.split('.')[0]!;
}

/**
 * An existing path: a built entry file (`node <absolute path>`: clients start servers from their own
 * folder), or a package folder (its bin or main). Undefined when nothing is there and the argument
 * may be a package name; a missing path that cannot be one is an error.
 */
function localEntry(target: string, cwd: string): LocalEntry | undefined {
  const path = resolve(cwd, target);
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) return packageEntry(path);
    if (extname(path) === '.ts') throw new CliError(`${target} is TypeScript: install the built entry (npm run build, then e.g. dist/main-stdio.js)`);
    if (!ENTRY_EXTENSIONS.has(extname(path))) throw new CliError(`${target} is not a JavaScript entry file (.js, .mjs or .cjs)`);
    return { file: path, name: basename(path, extname(path)), manifest: manifestAbove(dirname(path)) };
  }
  const pathLike = /^[.~/\\]/.test(target) || target.includes('\\') || /\.[cm]?[jt]s$/.test(target) || (target.includes('/') && !target.startsWith('@'));
  if (pathLike) throw new CliError(`cannot find entry file ${target}`);
  return undefined;
}

/** An npm package spec (`notes-mcp`, `@acme/notes-mcp@1.2.0`): its name without scope and version. */
function packageSpec(target: string): string {
  const at = target.indexOf('@', 1);
  const name = at > 0 ? target.slice(0, at) : target;
  const version = at > 0 ? target.slice(at + 1) : undefined;
  if (!isValidPackageName(name) || version === '' || (version !== undefined && /\s/.test(version))) {
    throw new CliError(`${target} is neither an entry file here nor an npm package name (e.g. @acme/notes-mcp or notes-mcp@1.2.0)`);
  }
  return name.replace(/^@[^/]+\//, '');
}

/** The nearest package.json at or above `dir`: the project an entry file was built from. */
function manifestAbove(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return join(at, 'package.json');
    if (dirname(at) === at) return undefined;
  }
}

/** The package in `dir`: its stdio entry (bin, else main) as built, named after the package. */
function packageEntry(dir: string): LocalEntry {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) {
    throw new CliError(
      `install needs a server: a package name (mcpx install @acme/notes-mcp), a built entry file (mcpx install dist/main-stdio.js) or --url; ${dir} has no package.json to take one from`,
    );
  }
  let pkg: { name?: unknown; bin?: unknown; main?: unknown };
  try {
    pkg = JSON.parse(readFileSync(manifest, 'utf8')) as typeof pkg;
  } catch (err) {
    throw new CliError(`${manifest} is not valid JSON: ${(err as Error).message}`, 2, { cause: err });
  }
  const name = typeof pkg.name === 'string' ? pkg.name.replace(/^@[^/]+\//, '') : undefined;
  const file = binOf(pkg.bin, name, manifest) ?? (typeof pkg.main === 'string' && pkg.main ? pkg.main : undefined);
  if (!file) throw new CliError(`${manifest} has neither "bin" nor "main": give the built entry file, e.g. mcpx install dist/main-stdio.js`);
  const path = resolve(dir, file);
  if (!existsSync(path)) throw new CliError(`${path} (from ${manifest}) does not exist: build the package first (npm run build)`);
  return { file: path, name: name ?? basename(path, extname(path)), manifest };
}

/** The bin to start: the only one, or the one named after the package. */
function binOf(bin: unknown, name: string | undefined, manifest: string): string | undefined {
  if (typeof bin === 'string') return bin || undefined;
  if (!bin || typeof bin !== 'object') return undefined;
  const bins = Object.entries(bin as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string');
  if (bins.length <= 1) return bins[0]?.[1];
  const own = bins.find(([command]) => command === name);
  if (own) return own[1];
  throw new CliError(`${manifest} has several bins (${bins.map(([command]) => command).join(', ')}): give the one to start, e.g. mcpx install ${bins[0]![1]}`);
}

/** --env KEY=VALUE, repeatable: the stdio server's environment. */
function envOf(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const key = at < 0 ? pair : pair.slice(0, at);
    if (at < 0 || !ENV_KEY.test(key)) throw new CliError(`--env takes KEY=VALUE, KEY letters, digits and _ (not starting with a digit), got "${pair}"`);
    if (Object.prototype.hasOwnProperty.call(env, key)) throw new CliError(`--env ${key} is given twice`);
    env[key] = pair.slice(at + 1);
  }
  return env;
}
