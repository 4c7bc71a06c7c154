// `npm run build:ui`: makes each view in src/ui/ one self-contained HTML file in dist/ui/, the form
// an MCP Apps host renders (it loads nothing from the server but that one resource). For every
// src/ui/*.html, each `<script type="module" src="./x.ts"></script>` is bundled with esbuild (the
// script and everything it imports, @modelcontextprotocol/ext-apps included) and inlined in place.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'src/ui');
const outDir = join(root, 'dist/ui');
const SCRIPT = /<script\s+type="module"\s+src="([^"]+\.ts)"\s*><\/script>/g;

async function bundle(entry) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  // Inside <script>, "</script" would end the element early; "<\/script" is the same text to JavaScript.
  return result.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
}

mkdirSync(outDir, { recursive: true });
for (const file of readdirSync(srcDir).filter((f) => f.endsWith('.html'))) {
  const html = readFileSync(join(srcDir, file), 'utf8');
  const scripts = [...html.matchAll(SCRIPT)];
  if (scripts.length === 0) throw new Error(`src/ui/${file} has no <script type="module" src="./….ts"></script> to bundle`);
  let out = html;
  for (const [tag, src] of scripts) {
    const code = await bundle(join(srcDir, src));
    out = out.replace(tag, () => `<script type="module">${code}</script>`);
  }
  const target = join(outDir, file);
  writeFileSync(target, out);
  process.stderr.write(`built ${relative(root, target)} (${Math.round(Buffer.byteLength(out) / 1024)} kB)\n`);
}
