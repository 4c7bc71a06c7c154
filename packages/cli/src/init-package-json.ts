import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The cli package's own folder (the same from src/ under ts-jest and from dist/ once built). */
export const CLI_DIR = resolve(__dirname, '..');

/**
 * The scaffold's build and test toolchain. It ships inside the published cli, so a project made
 * anywhere gets these ranges; a test keeps them equal to this repository's own devDependencies.
 */
export const TOOLCHAIN = {
  '@types/jest': '^30.0.0',
  '@types/node': '^20.19.43',
  jest: '^30.5.2',
  'ts-jest': '^29.4.15',
  // `npm run dev` loads src/*.ts through it (mcpx dev).
  'ts-node': '^10.9.2',
  typescript: '~5.9.3',
} as const;

/** The templates `mcpx init --template <name>` knows. */
export type TemplateName = 'default' | 'app';

/**
 * What the app template adds to build its view: esbuild bundles src/ui/view.ts, which imports `App`
 * from @modelcontextprotocol/ext-apps, with the peers that import needs (@modelcontextprotocol/client,
 * which brings @modelcontextprotocol/core, and zod). The bundle is inlined into one HTML file, so
 * none of them is needed at run time. A test keeps them equal to this repository's own versions.
 */
export const APP_TOOLCHAIN = {
  '@modelcontextprotocol/client': '^2.4.0',
  '@modelcontextprotocol/ext-apps': '^2.0.4',
  esbuild: '^0.28.2',
  zod: '^4.6.7',
} as const;

type Manifest = { name: string; version: string; dependencies?: Record<string, string> };

function readManifest(file: string): Manifest {
  return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
}

function rangeOf(manifest: Manifest, name: string): string {
  const range = manifest.dependencies?.[name];
  if (!range) throw new Error(`${manifest.name} does not depend on ${name}`);
  return range;
}

export interface ScaffoldVersions {
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/**
 * The versions the scaffold depends on, all read from the installed cli and @mcpx/core (the
 * published packages, or their workspace copies in this repo): the @mcpx packages at the cli's
 * own version (they are released together), class-validator, class-transformer and
 * reflect-metadata at @mcpx/core's ranges, pino and pino-pretty at the cli's ranges.
 */
export function scaffoldVersions(): ScaffoldVersions {
  const cli = readManifest(join(CLI_DIR, 'package.json'));
  const core = readManifest(require.resolve('@mcpx/core/package.json', { paths: [CLI_DIR] }));
  const mcpx = `^${cli.version}`;
  return {
    dependencies: {
      '@mcpx/core': mcpx,
      '@mcpx/http': mcpx,
      '@mcpx/stdio': mcpx,
      'class-transformer': rangeOf(core, 'class-transformer'),
      'class-validator': rangeOf(core, 'class-validator'),
      pino: rangeOf(cli, 'pino'),
      'reflect-metadata': rangeOf(core, 'reflect-metadata'),
    },
    // Colour on a terminal only; production images install without optional dependencies.
    optionalDependencies: { 'pino-pretty': rangeOf(cli, 'pino-pretty') },
    // The mcpx command: `npm run manifest` writes the registry's server.json with it.
    devDependencies: { '@mcpx/testing': mcpx, mcpx, ...TOOLCHAIN },
  };
}

/** The command name of the scaffold's stdio bin: the package name without its scope. */
export function binName(name: string): string {
  return name.replace(/^@[^/]+\//, '');
}

/** The default template's scripts. */
const SCRIPTS = {
  build: 'tsc -p tsconfig.json',
  typecheck: 'tsc -p tsconfig.test.json',
  test: 'jest',
  start: 'npm run build --silent && node dist/main.js',
  'start:stdio': 'npm run build --silent && node dist/main-stdio.js',
  prepack: 'npm run build',
  dev: 'mcpx dev src/server.ts',
  manifest: 'npm run build --silent && mcpx manifest',
};

/**
 * The app template's scripts: the view is type-checked and bundled into dist/ui/ before tsc compiles
 * the server, and before the tests (which read it). No nested `npm run` in `build`: its banner would
 * reach stdout, which `npm run --silent start:stdio` keeps for the protocol.
 */
const APP_SCRIPTS = {
  build: 'tsc -p tsconfig.ui.json && node scripts/build-ui.mjs && tsc -p tsconfig.json',
  'build:ui': 'tsc -p tsconfig.ui.json && node scripts/build-ui.mjs',
  typecheck: 'tsc -p tsconfig.test.json && tsc -p tsconfig.ui.json',
  pretest: 'npm run build:ui',
  test: SCRIPTS.test,
  start: SCRIPTS.start,
  'start:stdio': SCRIPTS['start:stdio'],
  prepack: SCRIPTS.prepack,
  dev: 'node scripts/build-ui.mjs && mcpx dev src/server.ts',
  manifest: SCRIPTS.manifest,
};

function sortedKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** The scaffold's package.json text: a package that can be published, with its stdio entry as its bin. */
export function packageJson(name: string, versions: ScaffoldVersions = scaffoldVersions(), template: TemplateName = 'default'): string {
  const app = template === 'app';
  const manifest = {
    name,
    version: '0.1.0',
    description: app ? 'An MCP server with an MCP Apps view, built with mcpx' : 'An MCP server built with mcpx',
    keywords: app ? ['mcp', 'mcp-server', 'mcp-app', 'model-context-protocol'] : ['mcp', 'mcp-server', 'model-context-protocol'],
    main: 'dist/server.js',
    bin: { [binName(name)]: 'dist/main-stdio.js' },
    files: ['dist'],
    engines: { node: '>=20' },
    scripts: app ? APP_SCRIPTS : SCRIPTS,
    dependencies: versions.dependencies,
    optionalDependencies: versions.optionalDependencies,
    devDependencies: app ? sortedKeys({ ...versions.devDependencies, ...APP_TOOLCHAIN }) : versions.devDependencies,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
