import { existsSync, statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getServerOptions } from '@mcpx/core/registry';
import { isMcpxError } from '@mcpx/core/errors';
import { CliError, isDefinitionError, oneLine } from './errors';

/** A server the module offers: a decorated class to instantiate, or a ready instance. */
export interface ServerCandidate {
  name: string;
  create(): object;
}

const TS_EXTENSIONS = new Set(['.ts', '.cts', '.mts', '.tsx']);

/** Loads the entry module (.ts through ts-node) and returns its exports. */
export async function loadModule(entry: string, cwd = process.cwd()): Promise<unknown> {
  const file = resolve(cwd, entry);
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`cannot find entry file ${entry} (looked at ${file})`);
  if (TS_EXTENSIONS.has(extname(file))) registerTsNode(file);
  try {
    return require(file);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_REQUIRE_ESM') {
      try {
        return await importEsm(pathToFileURL(file).href);
      } catch (esmErr) {
        throw new CliError(`could not load ${entry}: ${oneLine(esmErr)}`);
      }
    }
    throw new CliError(`could not load ${entry}: ${oneLine(err)}`);
  }
}

// A real dynamic import: TypeScript would turn `import()` into `require()` under CommonJS.
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed string, for the reason above
const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

let tsNodeRegistered = false;
let typeCheck = true;

/**
 * TypeScript entries load without a type-check from now on: `mcpx dev` reloads on every save, and
 * a full check costs seconds. transpileModule still emits decorator metadata.
 */
export function loadTypeScriptWithoutTypeCheck(): void {
  typeCheck = false;
}

function registerTsNode(file: string): void {
  if (tsNodeRegistered) return;
  let tsNode: { register(options: Record<string, unknown>): unknown };
  try {
    const path = require.resolve('ts-node', { paths: [dirname(file), __dirname] });
    tsNode = require(path);
  } catch {
    throw new CliError(`${file} is TypeScript and ts-node is not installed: npm install --save-dev ts-node typescript, or compile it and serve the .js`);
  }
  tsNode.register({
    transpileOnly: !typeCheck,
    projectSearchDir: dirname(file),
    compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true, module: 'commonjs', moduleResolution: 'node' },
  });
  tsNodeRegistered = true;
}

const isServerClass = (value: unknown): value is new () => object => typeof value === 'function' && getServerOptions(value) !== undefined;
const isServerInstance = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && typeof (value as object).constructor === 'function' && getServerOptions((value as object).constructor) !== undefined;

/** The servers a module exports: decorated classes, instances of them, and a default export of either. */
export function findServers(exports: unknown): ServerCandidate[] {
  const found = new Map<unknown, ServerCandidate>();
  const consider = (value: unknown, key: string) => {
    if (found.has(value)) return;
    if (isServerClass(value)) {
      const name = value.name || key;
      found.set(value, { name, create: () => instantiate(value, name) });
    } else if (isServerInstance(value)) {
      found.set(value, { name: key === 'default' || key === 'module.exports' ? value.constructor.name : key, create: () => value });
    }
  };
  consider(exports, 'module.exports');
  if (exports && (typeof exports === 'object' || typeof exports === 'function')) {
    for (const [key, value] of Object.entries(exports as Record<string, unknown>)) consider(value, key);
    const def = (exports as { default?: unknown }).default;
    if (def && typeof def === 'object') for (const [key, value] of Object.entries(def as Record<string, unknown>)) consider(value, key);
  }
  return [...found.values()];
}

function instantiate(cls: new () => object, name: string): object {
  try {
    return new cls();
  } catch (err) {
    throw new CliError(`could not create ${name}: ${oneLine(err)}`, 1);
  }
}

/** Picks the server to run: the only one, or the one `--server` names. */
export function chooseServer(entry: string, servers: ServerCandidate[], wanted: string | undefined): ServerCandidate {
  if (servers.length === 0) {
    throw new CliError(`${entry} exports no server: export a class decorated with @Server (or an instance of one)`);
  }
  const names = servers.map((s) => s.name).join(', ');
  if (wanted !== undefined) {
    const match = servers.find((s) => s.name === wanted);
    if (!match) throw new CliError(`${entry} has no server named ${wanted}; it exports: ${names}`);
    return match;
  }
  if (servers.length > 1) throw new CliError(`${entry} exports several servers (${names}): pick one with --server <Name>`);
  return servers[0]!;
}

/** Loads the entry and returns the chosen server instance. */
export async function loadServer(entry: string, wanted?: string): Promise<{ name: string; instance: object }> {
  const exports = await loadModule(entry);
  const server = chooseServer(entry, findServers(exports), wanted);
  return { name: server.name, instance: server.create() };
}

/** Scanner errors (DefinitionError, and bad options reported as RangeError/TypeError while building) become one line, exit 2. */
export function definitionFailure(err: unknown): CliError | undefined {
  if (err instanceof CliError) return err;
  // An unknown @Server option too: the command's own options to listen() and serveStdio() are all known ones.
  if (isDefinitionError(err) || isMcpxError(err, 'MCPX_OPTION_UNKNOWN')) return new CliError(`invalid server definition: ${oneLine(err)}`, 2, { cause: err });
  // Skills that cannot be served (a missing folder, a SKILL.md without valid frontmatter): the message names the file.
  if (isMcpxError(err, 'MCPX_SKILLS')) return new CliError(`cannot serve the skills: ${oneLine(err)}`, 2, { cause: err });
  return undefined;
}
