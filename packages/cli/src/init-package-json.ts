import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The cli package's own folder (the same from src/ under ts-jest and from dist/ once built). */
export const CLI_DIR = resolve(__dirname, '..');

type Manifest = { name?: string; version?: string; workspaces?: unknown; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

/** Used only when the installed packages cannot be read (they always can inside this repo). */
const FALLBACK = {
  'class-validator': '^0.15.1',
  'class-transformer': '^0.5.1',
  'reflect-metadata': '^0.2.2',
  jest: '^30.0.0',
  'ts-jest': '^29.4.0',
  '@types/jest': '^30.0.0',
  '@types/node': '^20.19.0',
} as const;

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** The version range of an @mcpx package: `^` + the version installed next to the cli (its workspace copy in this repo). */
function mcpxRange(name: string, cli: Manifest): string {
  try {
    const version = readManifest(require.resolve(`${name}/package.json`, { paths: [CLI_DIR] }))?.version;
    if (version) return `^${version}`;
  } catch {
    // not installed next to the cli: fall through
  }
  return cli.dependencies?.[name] ?? `^${cli.version ?? '0.1.0'}`;
}

/** The workspace root's package.json, when the cli runs from a checkout of the mcpx repo. */
function workspaceManifest(): Manifest | undefined {
  for (let dir = dirname(CLI_DIR); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = readManifest(file);
      if (manifest?.workspaces) return manifest;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export interface ScaffoldVersions {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/**
 * The versions the scaffold depends on, read at run time: the @mcpx packages at this repo's
 * versions, class-validator, class-transformer and reflect-metadata at @mcpx/core's ranges, the
 * test toolchain at the workspace's ranges, TypeScript at ~5.9.3.
 */
export function scaffoldVersions(): ScaffoldVersions {
  const cli = readManifest(join(CLI_DIR, 'package.json')) ?? {};
  let core: Manifest | undefined;
  try {
    core = readManifest(require.resolve('@mcpx/core/package.json', { paths: [CLI_DIR] }));
  } catch {
    core = undefined;
  }
  const root = workspaceManifest();
  const fromCore = (name: keyof typeof FALLBACK) => core?.dependencies?.[name] ?? FALLBACK[name];
  const fromRoot = (name: keyof typeof FALLBACK) => root?.devDependencies?.[name] ?? FALLBACK[name];
  return {
    dependencies: {
      '@mcpx/core': mcpxRange('@mcpx/core', cli),
      '@mcpx/http': mcpxRange('@mcpx/http', cli),
      '@mcpx/stdio': mcpxRange('@mcpx/stdio', cli),
      'class-transformer': fromCore('class-transformer'),
      'class-validator': fromCore('class-validator'),
      'reflect-metadata': fromCore('reflect-metadata'),
    },
    devDependencies: {
      '@mcpx/testing': mcpxRange('@mcpx/testing', cli),
      '@types/jest': fromRoot('@types/jest'),
      '@types/node': fromRoot('@types/node'),
      jest: fromRoot('jest'),
      'ts-jest': fromRoot('ts-jest'),
      typescript: '~5.9.3',
    },
  };
}

/** The scaffold's package.json text. */
export function packageJson(name: string, versions: ScaffoldVersions = scaffoldVersions()): string {
  const manifest = {
    name,
    version: '0.1.0',
    private: true,
    description: 'An MCP server built with mcpx',
    main: 'dist/server.js',
    engines: { node: '>=20' },
    scripts: {
      build: 'tsc -p tsconfig.json',
      typecheck: 'tsc -p tsconfig.test.json',
      test: 'jest',
      start: 'npm run build --silent && node dist/main.js',
      'start:stdio': 'npm run build --silent && node dist/main-stdio.js',
    },
    dependencies: versions.dependencies,
    devDependencies: versions.devDependencies,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
