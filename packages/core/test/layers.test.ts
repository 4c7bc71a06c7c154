/**
 * The packages' sources are layered, and the layers are checked here rather than trusted to review:
 * no import cycle inside a package's src (a cycle makes load order decide what is `undefined` at
 * module init, and makes every module in it a dependency of every other); packages import only
 * packages below them; inside @mcpx/core each folder imports only its own layer or lower ones; and
 * no source file grows past MAX_LINES. Imports are read with the TypeScript parser, `import type`
 * and `export ... from` included: a type-only cycle costs nothing at run time but still ties the
 * modules together for a reader and for the compiler. Dynamic imports of a computed name (an
 * optional peer such as `import('@mcpx/otel' as string)`) are deliberately not edges.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGES_DIR = join(ROOT, 'packages');

/** Package layers, lowest first: a package imports only packages of a lower rank. */
const PACKAGE_RANK: Record<string, number> = {
  core: 0,
  otel: 1,
  stdio: 1,
  http: 1,
  redis: 1,
  openapi: 1,
  proxy: 1,
  testing: 1,
  cli: 2,
  mcpx: 3,
};

/**
 * @mcpx/core's layers: a folder (or a file directly under src/) imports only from its own rank or a
 * lower one. The longest matching key wins, so a single file may sit apart from its folder.
 */
const CORE_RANK: Record<string, number> = {
  // Leaves: import nothing of core's.
  'clock.ts': 0,
  'compact.ts': 0,
  'env-flag.ts': 0,
  'promised.ts': 0,
  // The compile cache, turned on before anything else of core's loads (index.ts imports it first).
  startup: 0,
  // The wire: JSON-RPC, MCP types and codes; errors.ts is the error base over the wire codes ('@mcpx/core/errors').
  protocol: 1,
  'errors.ts': 1,
  // Foundations over the wire types: principals, content helpers, the stores' and the cluster's
  // contracts (implemented elsewhere, e.g. @mcpx/redis), telemetry, and small shared helpers.
  auth: 2,
  content: 2,
  stores: 2,
  policies: 2,
  cluster: 2,
  telemetry: 2,
  'uri-template.ts': 2,
  'definition-error.ts': 2,
  'decorator-form.ts': 2,
  // What a definition and a handler are made of: schemas, decorators' metadata, the request context.
  schema: 3,
  metadata: 3,
  context: 3,
  // MCP Apps: the view options, their checks and what a tool's `ui` makes of its _meta; the view
  // entries and the check that each named view exists are built with the registry's.
  apps: 3,
  'apps/app-resource.ts': 4,
  'apps/app-registry-check.ts': 4,
  // Entries, and the scanner that turns classes into them.
  registry: 4,
  scanner: 4,
  // One request's run: admission, middleware, the handler call.
  pipeline: 5,
  // What runs inside the pipeline: the shared method handlers, tasks, extensions.
  handlers: 6,
  tasks: 6,
  extensions: 6,
  skills: 6,
  // The two protocol eras, each built from the shared handlers.
  eras: 7,
  // Composition roots: they build a server from everything below.
  engine: 8,
  'server.ts': 8,
  // The entry points: '@mcpx/core', '@mcpx/core/transport' and the subpaths in exports/.
  'transport.ts': 9,
  'index.ts': 9,
  exports: 9,
};

/** A file longer than this is split (by what its parts do, not by line count). */
const MAX_LINES = 400;

interface ImportRef {
  specifier: string;
  /** Erased at compile time: `import type`, `export type ... from`, only `type` specifiers, `import('x')` in a type. */
  typeOnly: boolean;
}

/** Every module `source` names statically: imports, re-exports, `import =`, `import()`/`require()` of a literal, import types. */
function importsOf(file: string, source: string): ImportRef[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: ImportRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const onlyTypeSpecifiers = !!clause && !clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly);
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: !!clause && (clause.phaseModifier === ts.SyntaxKind.TypeKeyword || onlyTypeSpecifiers) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sourcesOf(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sourcesOf(path, out);
    else if (path.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The file a relative specifier names, as TypeScript resolves it for CommonJS. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.d.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c) && statSync(c).isFile());
}

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

interface PackageGraph {
  pkg: string;
  src: string;
  files: string[];
  /** Within the package's src, one edge per importing pair (type-only when every import between them is). */
  edges: Map<string, Map<string, Edge>>;
  /** `@mcpx/...` imports: file, the package named, and the specifier. */
  crossPackage: { from: string; pkg: string; specifier: string }[];
  /** Relative imports that leave the package's src, or name no file. */
  strays: string[];
}

const rel = (file: string): string => relative(ROOT, file).split(sep).join('/');

function graphOf(pkg: string): PackageGraph {
  const src = join(PACKAGES_DIR, pkg, 'src');
  const files = sourcesOf(src);
  const graph: PackageGraph = { pkg, src, files, edges: new Map(), crossPackage: [], strays: [] };
  for (const file of files) {
    const out = new Map<string, Edge>();
    graph.edges.set(file, out);
    for (const { specifier, typeOnly } of importsOf(file, readFileSync(file, 'utf8'))) {
      const scoped = /^@mcpx\/([^/]+)/.exec(specifier);
      if (scoped) {
        graph.crossPackage.push({ from: file, pkg: scoped[1], specifier });
        continue;
      }
      if (!specifier.startsWith('.')) continue; // a dependency from node_modules or node:
      const target = resolveRelative(file, specifier);
      if (!target) graph.strays.push(`${rel(file)}: '${specifier}' names no file`);
      else if (!target.startsWith(src + sep)) graph.strays.push(`${rel(file)}: '${specifier}' leaves ${rel(src)} (import the package by name)`);
      else {
        const previous = out.get(target);
        out.set(target, { from: file, to: target, typeOnly: typeOnly && (previous?.typeOnly ?? true) });
      }
    }
  }
  return graph;
}

/** Strongly connected components (Tarjan), each with more than one file or importing itself. */
function cyclicComponents(graph: PackageGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.edges.get(v)!.keys()) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.edges.get(v)!.has(v)) components.push(component.sort());
    }
  };
  for (const file of graph.files) if (!index.has(file)) connect(file);
  return components;
}

/**
 * Readable cycles: for each file in a cyclic component, the shortest chain from it back to itself,
 * each chain once. Every file of every cycle appears in at least one. ` -> ` is an import that stays
 * at run time, ` -type-> ` one that is erased.
 */
function cycles(graph: PackageGraph): string[] {
  const chains = new Set<string>();
  for (const component of cyclicComponents(graph)) {
    const members = new Set(component);
    for (const start of component) {
      // Breadth-first from start's imports back to start, staying inside the component.
      const previous = new Map<string, string>();
      const queue = [start];
      let found = false;
      for (let i = 0; i < queue.length && !found; i++) {
        for (const next of graph.edges.get(queue[i])!.keys()) {
          if (!members.has(next) || previous.has(next)) continue;
          previous.set(next, queue[i]);
          if (next === start) {
            found = true;
            break;
          }
          queue.push(next);
        }
      }
      const path = [start];
      for (let at = previous.get(start)!; at !== start; at = previous.get(at)!) path.unshift(at);
      path.unshift(start);
      // The same cycle found from another of its files: start it at its first file in sort order.
      const ring = path.slice(0, -1);
      const first = ring.indexOf([...ring].sort()[0]);
      const rotated = [...ring.slice(first), ...ring.slice(0, first), ring[first]];
      chains.add(
        rotated
          .map((file, i) => (i === 0 ? relative(graph.src, file) : `${graph.edges.get(rotated[i - 1])!.get(file)!.typeOnly ? ' -type-> ' : ' -> '}${relative(graph.src, file)}`))
          .join('')
          .split(sep)
          .join('/'),
      );
    }
  }
  return [...chains].sort();
}

/** The CORE_RANK key a core source file falls under (longest match), if any. */
function coreLayerOf(srcRelative: string): string | undefined {
  const keys = Object.keys(CORE_RANK).filter((key) => srcRelative === key || srcRelative.startsWith(`${key}/`));
  return keys.sort((a, b) => b.length - a.length)[0];
}

const PACKAGES = readdirSync(PACKAGES_DIR)
  .filter((pkg) => existsSync(join(PACKAGES_DIR, pkg, 'src')))
  .sort();
const graphs = new Map(PACKAGES.map((pkg) => [pkg, graphOf(pkg)]));

describe('the import reader', () => {
  it('finds imports, type imports, re-exports, require, import() and import types', () => {
    const source = `
      import { a } from './a';
      import type { B } from './b';
      import { type C, type D } from './c';
      import { type E, e } from './e';
      import './side-effect';
      export * from './f';
      export type { G } from './g';
      import h = require('./h');
      const i = require('./i');
      export async function load() { return import('./j'); }
      let k: import('./k').K;
      const computed = import('@mcpx/otel' as string);`;
    expect(importsOf('x.ts', source)).toEqual([
      { specifier: './a', typeOnly: false },
      { specifier: './b', typeOnly: true },
      { specifier: './c', typeOnly: true },
      { specifier: './e', typeOnly: false },
      { specifier: './side-effect', typeOnly: false },
      { specifier: './f', typeOnly: false },
      { specifier: './g', typeOnly: true },
      { specifier: './h', typeOnly: false },
      { specifier: './i', typeOnly: false },
      { specifier: './j', typeOnly: false },
      { specifier: './k', typeOnly: true },
    ]);
  });

  it('sees every package with sources', () => {
    expect(PACKAGES).toEqual(
      Object.keys(PACKAGE_RANK)
        .filter((pkg) => existsSync(join(PACKAGES_DIR, pkg, 'src')))
        .sort(),
    );
    expect(graphs.get('core')!.files.length).toBeGreaterThan(50);
  });
});

describe.each(PACKAGES)('packages/%s/src', (pkg) => {
  const graph = graphs.get(pkg)!;

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('imports its own files by relative paths that stay inside src', () => {
    expect(graph.strays).toEqual([]);
  });

  it('imports only packages below it', () => {
    const rank = PACKAGE_RANK[pkg];
    const violations = graph.crossPackage
      .filter((i) => !(PACKAGE_RANK[i.pkg] < rank))
      .map((i) =>
        i.pkg === pkg
          ? `${rel(i.from)}: '${i.specifier}' is its own package by name (that loads dist/, not this source)`
          : i.pkg in PACKAGE_RANK
            ? `${rel(i.from)}: '${i.specifier}' (rank ${PACKAGE_RANK[i.pkg]}) is not below ${pkg} (rank ${rank})`
            : `${rel(i.from)}: '${i.specifier}' is a package with no rank in PACKAGE_RANK`,
      );
    expect(violations).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = graph.files
      .map((file) => ({ file, lines: readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${rel(f.file)}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});

describe('packages/core/src layers', () => {
  const graph = graphs.get('core')!;
  const srcPath = (file: string): string => relative(graph.src, file).split(sep).join('/');

  it('gives every folder and top-level file a rank', () => {
    expect(graph.files.map(srcPath).filter((file) => coreLayerOf(file) === undefined)).toEqual([]);
  });

  it('has each file import only its own layer or lower ones', () => {
    const violations: string[] = [];
    for (const [from, out] of graph.edges) {
      const fromLayer = coreLayerOf(srcPath(from));
      if (fromLayer === undefined) continue; // reported above
      for (const edge of out.values()) {
        const toLayer = coreLayerOf(srcPath(edge.to));
        if (toLayer === undefined || CORE_RANK[toLayer] <= CORE_RANK[fromLayer]) continue;
        violations.push(`${srcPath(from)} (${fromLayer}, ${CORE_RANK[fromLayer]}) ${edge.typeOnly ? '-type->' : '->'} ${srcPath(edge.to)} (${toLayer}, ${CORE_RANK[toLayer]})`);
      }
    }
    expect(violations.sort()).toEqual([]);
  });
});
