// Builds the notes board into one self-contained HTML file (apps/example/dist/ui/board.html):
// board.ts and the MCP Apps SDK bundled by esbuild and inlined into board.html, since a host loads
// a view as a single document. Run by the root `npm run build`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'ui', 'board.html');
const bundle = await build({
  entryPoints: [join(here, 'board.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  logLevel: 'warning',
});
// "</script" inside the code would end the inline script early.
const code = bundle.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
const page = readFileSync(join(here, 'board.html'), 'utf8');
const tag = '<script type="module" src="./board.ts"></script>';
if (!page.includes(tag)) throw new Error(`board.html must hold ${tag}`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  page.replace(tag, () => `<script type="module">${code}</script>`),
);
