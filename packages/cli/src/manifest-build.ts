import { CliError } from './errors';

/** The server.json schema this command writes (a copy ships in schemas/: `manifest-schema.ts`). */
export const SERVER_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const DESCRIPTION_MAX = 100;
const NPM_REGISTRY = 'https://registry.npmjs.org';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_FORMATS = ['string', 'number', 'boolean', 'filepath'] as const;
/** Where server.json keeps what mcpx knows beyond the registry's fields (the schema's publisher-provided metadata). */
export const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';

/** An environment variable the server reads, as package.json's `mcpx.env` declares it. */
export interface EnvDeclaration {
  description: string;
  required?: boolean;
  secret?: boolean;
  default?: string;
  format?: (typeof ENV_FORMATS)[number];
}

/** A declared variable as server.json lists it (the registry's KeyValueInput); `mcpx install` asks for the required ones. */
export interface EnvVariable {
  name: string;
  description: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: EnvDeclaration['format'];
  default?: string;
}

/** The parts of package.json the manifest is made from. */
export interface PackageJson {
  name?: string;
  version?: string;
  description?: string;
  private?: boolean;
  homepage?: string;
  bin?: string | Record<string, string>;
  repository?: string | { type?: string; url?: string; directory?: string };
  mcpName?: string;
  /** mcpx's own settings: the registry name, the public URL of a deployment, the environment the server reads. */
  mcpx?: { name?: string; url?: string; env?: Record<string, EnvDeclaration> };
}

/** What the server offers, as the engine built it. */
export interface ServerFacts {
  info: { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: unknown[] };
  tools: string[];
  prompts: string[];
  resourceTemplates: string[];
}

export interface ManifestOptions {
  /** --name: the registry name, over package.json's `mcpx.name`, `mcpName` and the one derived from `repository`. */
  name?: string;
  /** --url: a Streamable HTTP deployment, over package.json's `mcpx.url`. */
  url?: string;
}

/** server.json as the registry's schema (2025-12-11) describes it; key order is the order written. */
export type ServerJson = Record<string, unknown>;

/** server.json for the package and its server, and notes on what was shortened or left out. */
export function buildManifest(pkg: PackageJson, server: ServerFacts, options: ManifestOptions = {}): { manifest: ServerJson; notes: string[] } {
  const notes: string[] = [];
  const name = registryName(pkg, options);
  const version = exactVersion(pkg.version);
  const description = shortened(server.info.description ?? pkg.description ?? '', notes);
  if (!description) throw new CliError('the server needs a description for the registry: give @Server({ description }) or package.json "description"');
  const url = options.url ?? pkg.mcpx?.url;
  const remotes = url === undefined ? undefined : [{ type: 'streamable-http', url: httpUrl(url, options.url !== undefined ? '--url' : 'package.json "mcpx.url"') }];
  const environmentVariables = envVariables(pkg.mcpx?.env);
  const packages = publishable(pkg) ? [npmPackage(pkg, version, environmentVariables)] : undefined;
  if (!packages) notes.push('no npm package entry: package.json is private or has no "bin" (a stdio command to run)');
  if (!packages && !remotes)
    throw new CliError('nothing a client could run: publish the package with a "bin" for stdio, or give the URL of a deployment (--url, or package.json "mcpx.url")');
  const repository = repositoryOf(pkg.repository);
  const manifest: ServerJson = compact({
    $schema: SERVER_SCHEMA_URL,
    name,
    title: server.info.title?.slice(0, DESCRIPTION_MAX),
    description,
    version,
    websiteUrl: server.info.websiteUrl ?? pkg.homepage,
    repository,
    icons: server.info.icons,
    packages,
    remotes,
    _meta: {
      [PUBLISHER_META]: {
        tool: 'mcpx manifest',
        serverInfo: { name: server.info.name, version: server.info.version },
        tools: server.tools,
        prompts: server.prompts,
        // Not the resources: a server may list its data as resources (the notes example lists each
        // note), which would make the file change with the data; templates describe them.
        resourceTemplates: server.resourceTemplates,
      },
    },
  });
  return { manifest, notes };
}

/** --name, else package.json's `mcpx.name` or `mcpName`, else `io.github.<owner>/<package name without scope>` from a GitHub repository. */
export function registryName(pkg: PackageJson, options: ManifestOptions): string {
  const given = options.name ?? pkg.mcpx?.name ?? pkg.mcpName;
  const from = options.name !== undefined ? '--name' : pkg.mcpx?.name !== undefined ? 'package.json "mcpx.name"' : 'package.json "mcpName"';
  const name = given ?? derivedName(pkg);
  if (name.length < 3 || name.length > 200 || !NAME.test(name)) {
    throw new CliError(`${given === undefined ? 'the derived name' : from} must be a reverse-DNS namespace and a name, e.g. io.github.acme/notes, got "${name}"`);
  }
  return name;
}

function derivedName(pkg: PackageJson): string {
  const owner = githubOwner(pkg.repository);
  if (!owner || !pkg.name) throw new CliError('cannot derive the registry name: give --name (e.g. io.github.acme/notes), or a GitHub "repository" and a "name" in package.json');
  return `io.github.${owner}/${pkg.name.replace(/^@[^/]+\//, '')}`;
}

/** The owner of a GitHub repository as package.json names it: `github:o/r`, `o/r`, or a URL. */
function githubOwner(repository: PackageJson['repository']): string | undefined {
  const text = typeof repository === 'string' ? repository : repository?.url;
  if (!text) return undefined;
  const shorthand = /^(?:github:)?([A-Za-z0-9-]+)\/[A-Za-z0-9._-]+$/.exec(text);
  if (shorthand) return shorthand[1];
  return /github\.com[/:]([A-Za-z0-9-]+)\/[A-Za-z0-9._-]+?(?:\.git)?\/?$/.exec(text)?.[1];
}

function repositoryOf(repository: PackageJson['repository']): Record<string, string> | undefined {
  const text = typeof repository === 'string' ? repository : repository?.url;
  if (!text) return undefined;
  const owner = githubOwner(repository);
  const repo = /([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(text)?.[1];
  const directory = typeof repository === 'object' ? repository.directory : undefined;
  if (owner && repo) return compact({ url: `https://github.com/${owner}/${repo}`, source: 'github', subfolder: directory }) as Record<string, string>;
  const url = text.replace(/^git\+/, '').replace(/\.git$/, '');
  return /^https?:\/\//.test(url) ? (compact({ url, source: new URL(url).hostname.split('.').slice(-2, -1)[0] ?? 'git', subfolder: directory }) as Record<string, string>) : undefined;
}

/** The registry takes exact versions only (a range, or `latest`, is refused at publish). */
function exactVersion(version: string | undefined): string {
  if (!version || !/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version)) {
    throw new CliError(`package.json "version" must be an exact version such as 1.2.0, got ${JSON.stringify(version ?? null)}`);
  }
  return version;
}

/** The description within the schema's 100 characters: cut at a word, with an ellipsis, and said. */
function shortened(text: string, notes: string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= DESCRIPTION_MAX) return flat;
  const cut = flat.slice(0, DESCRIPTION_MAX - 1);
  const endsAtWord = flat[DESCRIPTION_MAX - 1] === ' ';
  const atWord = endsAtWord || cut.lastIndexOf(' ') <= DESCRIPTION_MAX / 2 ? cut : cut.slice(0, cut.lastIndexOf(' '));
  notes.push(`description shortened to the registry's ${DESCRIPTION_MAX} characters`);
  return `${atWord.replace(/[\s,.;:]+$/, '')}…`;
}

function httpUrl(url: string, from: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) throw new CliError(`${from} must be the http(s) URL of the MCP endpoint, got "${url}"`);
  return url;
}

function publishable(pkg: PackageJson): boolean {
  return pkg.private !== true && !!pkg.name && (typeof pkg.bin === 'string' || (typeof pkg.bin === 'object' && pkg.bin !== null && Object.keys(pkg.bin).length > 0));
}

function npmPackage(pkg: PackageJson, version: string, environmentVariables: object[] | undefined): ServerJson {
  return compact({ registryType: 'npm', registryBaseUrl: NPM_REGISTRY, identifier: pkg.name, version, transport: { type: 'stdio' }, environmentVariables });
}

/** package.json's `mcpx.env`, checked, as the registry's KeyValueInput list (sorted by name: a stable file). */
export function envVariables(env: Record<string, EnvDeclaration> | undefined): EnvVariable[] | undefined {
  if (env === undefined) return undefined;
  if (typeof env !== 'object' || env === null || Array.isArray(env))
    throw new CliError('package.json "mcpx.env" must be an object: { "NAME": { "description": "...", "required": true, "secret": true } }');
  const names = Object.keys(env).sort();
  return names.map((name) => {
    const declared = env[name]!;
    const where = `package.json "mcpx.env.${name}"`;
    if (!ENV_NAME.test(name)) throw new CliError(`${where}: not an environment variable name`);
    if (typeof declared !== 'object' || declared === null || typeof declared.description !== 'string' || !declared.description) {
      throw new CliError(`${where} needs a "description" (what the user must give)`);
    }
    if (declared.format !== undefined && !ENV_FORMATS.includes(declared.format)) throw new CliError(`${where}: "format" must be one of ${ENV_FORMATS.join(', ')}`);
    if (declared.default !== undefined && typeof declared.default !== 'string') throw new CliError(`${where}: "default" must be a string`);
    return compact({
      name,
      description: declared.description,
      isRequired: declared.required === true ? true : undefined,
      isSecret: declared.secret === true ? true : undefined,
      format: declared.format,
      default: declared.default,
    });
  });
}

function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
