/**
 * No object literal with a getter or setter in the packages' sources, except the few made once per
 * server. In V8 a getter in an object literal keeps what it closes over alive through minor
 * collections: built per request or per session, it had every request (or short session) promoted
 * to old space whole, and stateless requests cost ~30% more CPU for it (docs/performance.md,
 * "Nothing promoted per request"). Per-request objects are classes, or literals without accessors.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');

/** Made once per endpoint, per stdio server, per test proxy: never on a request's path. */
const MADE_ONCE = ['packages/http/src/plugin.ts › mcpx', 'packages/stdio/src/serve-stdio.ts › serveStdio', 'packages/testing/src/round-robin-proxy.ts › startRoundRobinProxy'];

/** `file › enclosing function` for each object literal with an accessor in `source`. */
function accessorLiterals(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node) && node.properties.some((p) => ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p))) {
      found.push(`${file} › ${enclosingName(node)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The name of the outermost named function the node sits in (where a reader would look for it). */
function enclosingName(node: ts.Node): string {
  let name = '(module)';
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) name = n.name.getText();
    else if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && ts.isVariableDeclaration(n.parent)) name = n.parent.name.getText();
    else if (ts.isConstructorDeclaration(n) && ts.isClassDeclaration(n.parent)) name = `${n.parent.name?.getText() ?? '(class)'} constructor`;
  }
  return name;
}

function sourcesOf(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sourcesOf(path, out);
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

describe('object literals with accessors', () => {
  it('are found, with the function they are built in', () => {
    const source = `
      export function perRequest(stream: { closed: boolean }) {
        const channel = { get open() { return !stream.closed; }, send() {} };
        const plain = { open: true, send() {} };
        return [channel, plain];
      }
      class Holder { get value() { return 1; } }
      export const arrow = () => ({ set level(_: string) {} });`;
    expect(accessorLiterals('x.ts', source)).toEqual(['x.ts › perRequest', 'x.ts › arrow']);
  });

  it('appear in the packages only where they are made once per server', () => {
    const found: string[] = [];
    for (const pkg of readdirSync(join(ROOT, 'packages'))) {
      const src = join(ROOT, 'packages', pkg, 'src');
      if (!existsSync(src)) continue;
      for (const file of sourcesOf(src)) found.push(...accessorLiterals(relative(ROOT, file), readFileSync(file, 'utf8')));
    }
    expect(found.sort()).toEqual([...MADE_ONCE].sort());
  });
});
