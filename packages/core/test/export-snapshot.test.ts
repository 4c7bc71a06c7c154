// Pins every name each entry of @mcpx/core exports, types included, so a name is added, removed or
// moved between entries only on purpose: the diff of exports.snapshot.json shows it. After a
// deliberate change: MCPX_UPDATE_EXPORTS=1 npx jest packages/core/test/export-snapshot.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const SRC = join(__dirname, '../src');
const SNAPSHOT = join(__dirname, 'exports.snapshot.json');
/** Each subpath of the package (package.json "exports") and the source file behind it. */
const ENTRIES: Record<string, string> = {
  '.': 'index',
  './context': 'exports/context',
  './errors': 'errors',
  './protocol': 'exports/protocol',
  './registry': 'exports/registry',
  './schema': 'exports/schema',
  './stores': 'exports/stores',
  './telemetry': 'exports/telemetry',
  './transport': 'transport',
};
/** What a server author meets first stays small. */
const ROOT_LIMIT = 80;

function exportedNames(): Record<string, string[]> {
  const files = Object.values(ENTRIES).map((entry) => join(SRC, `${entry}.ts`));
  const program = ts.createProgram(files, {
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    skipLibCheck: true,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const out: Record<string, string[]> = {};
  for (const [subpath, entry] of Object.entries(ENTRIES)) {
    const source = program.getSourceFile(join(SRC, `${entry}.ts`))!;
    out[subpath] = checker
      .getExportsOfModule(checker.getSymbolAtLocation(source)!)
      .map((symbol) => symbol.name)
      .sort();
  }
  return out;
}

describe('the exports of @mcpx/core', () => {
  const names = exportedNames();

  it('are the pinned ones, entry by entry, types included', () => {
    if (process.env.MCPX_UPDATE_EXPORTS === '1') writeFileSync(SNAPSHOT, `${JSON.stringify(names, null, 2)}\n`);
    expect(names).toEqual(JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });

  it(`keep the main entry to at most ${ROOT_LIMIT} names`, () => {
    expect(names['.']!.length).toBeLessThanOrEqual(ROOT_LIMIT);
  });

  it('are the subpaths package.json declares', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(
      Object.keys(manifest.exports)
        .filter((subpath) => subpath !== './package.json')
        .sort(),
    ).toEqual(Object.keys(ENTRIES).sort());
  });

  it('name each runtime value of an entry once across the main entry and the subpaths, but for the light errors entry', () => {
    const seen = new Map<string, string>();
    for (const [subpath, entry] of Object.entries(ENTRIES)) {
      if (subpath === './errors') continue;
      const loaded = require(join(SRC, entry)) as Record<string, unknown>;
      for (const name of Object.keys(loaded)) {
        expect([name, seen.get(name)]).toEqual([name, undefined]);
        seen.set(name, subpath);
      }
    }
  });

  it('the errors entry holds the same objects as the entries that also export them', () => {
    const errors = require(join(SRC, 'errors')) as Record<string, unknown>;
    const core = require(join(SRC, 'index')) as Record<string, unknown>;
    for (const name of Object.keys(errors)) if (name in core) expect(errors[name]).toBe(core[name]);
  });
});
