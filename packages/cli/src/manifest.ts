import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from './args';
import { CliError } from './errors';
import { MANIFEST_HELP } from './help';
import { buildManifest, type PackageJson, type ServerFacts, type ServerJson } from './manifest-build';
import { schemaProblems } from './manifest-schema';

const MANIFEST_OPTIONS = {
  server: { type: 'string' },
  name: { type: 'string' },
  url: { type: 'string' },
  out: { type: 'string' },
  check: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `mcpx manifest [ENTRY]`: writes the registry's server.json from package.json and the server, and
 * sets package.json's `mcpName` to its name (the registry's proof that the npm package is the
 * server's); `--check` writes nothing and fails when either differs from what would be written.
 */
export async function runManifest(argv: string[], cwd = process.cwd()): Promise<number> {
  const { values, positionals } = parse('manifest', argv, MANIFEST_OPTIONS);
  if (values.help) {
    process.stdout.write(MANIFEST_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new CliError(`manifest takes one entry file, got ${positionals.length}: ${positionals.join(' ')}`);
  const packagePath = join(cwd, 'package.json');
  const packageText = readText(packagePath, 'package.json (run mcpx manifest in the package folder)');
  const pkg = parseJson<PackageJson>(packageText, packagePath);
  const entry = positionals[0] ?? mainOf(pkg);
  const server = await serverFacts(resolve(cwd, entry), values.server as string | undefined);
  const { manifest, notes } = buildManifest(pkg, server, { name: values.name as string | undefined, url: values.url as string | undefined });
  const problems = schemaProblems(manifest);
  if (problems.length > 0) throw new CliError(`the server.json made does not match the registry's schema: ${problems.join('; ')}`, 1);
  const outPath = resolve(cwd, (values.out as string | undefined) ?? 'server.json');
  const serverJson = `${JSON.stringify(manifest, null, 2)}\n`;
  const packageJson = withMcpName(packageText, pkg, manifest.name as string);
  for (const note of notes) process.stderr.write(`mcpx: note: ${note}\n`);
  if (values.check) return check(outPath, serverJson, packagePath, packageText, packageJson, manifest);
  writeAtomically(outPath, serverJson);
  if (packageJson !== packageText) writeAtomically(packagePath, packageJson);
  process.stdout.write(`wrote ${outPath} (${manifest.name as string} ${manifest.version as string})${packageJson !== packageText ? `, and mcpName in ${packagePath}` : ''}\n`);
  return 0;
}

/** The built server's entry when none is given: package.json "main". */
function mainOf(pkg: PackageJson & { main?: string }): string {
  if (typeof pkg.main === 'string' && pkg.main) return pkg.main;
  throw new CliError('manifest needs the built entry of the server, e.g. mcpx manifest dist/server.js (package.json has no "main")');
}

/** Loads the entry as `mcpx list` does and reads what the server offers, without serving it. */
async function serverFacts(entry: string, wanted: string | undefined): Promise<ServerFacts> {
  const { createEngine } = await import('@mcpx/core');
  const { definitionFailure, loadServer } = await import('./load-entry');
  const { default: pino } = await import('pino');
  const { instance } = await loadServer(entry, wanted);
  try {
    const { registry, serverInfo } = createEngine(instance, { logger: pino({ level: 'silent' }) });
    const names = (list: Iterable<{ definition: { name?: string; uriTemplate?: string } }>, key: 'name' | 'uriTemplate') => [...list].map((e) => e.definition[key]!).sort();
    return {
      info: serverInfo as ServerFacts['info'],
      tools: names(registry.tools.values(), 'name'),
      prompts: names(registry.prompts.values(), 'name'),
      resourceTemplates: names(registry.templates.values(), 'uriTemplate'),
    };
  } catch (err) {
    throw definitionFailure(err) ?? err;
  }
}

/** --check: exit 1, naming what differs, when server.json or mcpName are not what the code makes now. */
function check(outPath: string, serverJson: string, packagePath: string, packageText: string, packageJson: string, manifest: ServerJson): number {
  const drift: string[] = [];
  let current: string | undefined;
  try {
    current = readFileSync(outPath, 'utf8');
  } catch {
    drift.push(`${outPath} is missing`);
  }
  if (current !== undefined && current !== serverJson) {
    let stored: ServerJson | undefined;
    try {
      stored = JSON.parse(current) as ServerJson;
    } catch {
      drift.push(`${outPath} is not JSON`);
    }
    if (stored) drift.push(`${outPath} differs at ${differences(stored, manifest).join(', ') || 'its formatting'}`);
  }
  if (packageJson !== packageText) drift.push(`${packagePath} "mcpName" is not "${manifest.name as string}"`);
  if (drift.length === 0) {
    process.stdout.write(`${outPath} and mcpName are up to date\n`);
    return 0;
  }
  process.stderr.write(`mcpx: manifest out of date: ${drift.join('; ')} (run mcpx manifest to write them)\n`);
  return 1;
}

/** The paths (`packages[0].version`, `_meta…tools`) where two JSON values differ. */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const objects = typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b);
  if (!objects || Array.isArray(a)) return [path || '(the whole file)'];
  const keys = new Set([...Object.keys(a), ...Object.keys(b as object)]);
  return [...keys].flatMap((key) => differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], path ? `${path}.${key}` : key));
}

/** package.json with `mcpName` set, its formatting kept (indentation, key order, final newline); unchanged text when it is set already. */
function withMcpName(text: string, pkg: PackageJson, name: string): string {
  if (pkg.mcpName === name) return text;
  const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  const entries = Object.entries(pkg as Record<string, unknown>).filter(([key]) => key !== 'mcpName');
  // Next to "name" and "version", where the registry's docs show it.
  const at = entries.findIndex(([key]) => key === 'version') + 1 || entries.findIndex(([key]) => key === 'name') + 1;
  entries.splice(at, 0, ['mcpName', name]);
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const body = JSON.stringify(Object.fromEntries(entries), null, indent).replace(/\n/g, newline);
  return text.endsWith('\n') ? `${body}${newline}` : body;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new CliError(`cannot read ${what}: ${path}`);
  }
}

function parseJson<T>(text: string, path: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new CliError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/** A reader never sees half a file: written beside it, then renamed over it. */
function writeAtomically(path: string, text: string): void {
  const temporary = join(dirname(path), `.${process.pid}.mcpx-manifest.tmp`);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (err) {
    throw new CliError(`cannot write ${path}: ${(err as Error).message}`, 1);
  }
}
