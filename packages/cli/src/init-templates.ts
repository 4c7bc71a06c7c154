import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { CLI_DIR } from './init-package-json';

export const TEMPLATES_DIR = join(CLI_DIR, 'templates');

/** Template file names that would otherwise be picked up by tools in this repo (or dropped by npm pack). */
const RENAMES: Record<string, string> = { gitignore: '.gitignore', dockerignore: '.dockerignore' };

export interface TemplateFile {
  /** Where it goes in the new project, with `/` separators. */
  path: string;
  content: string;
}

/** The scaffold's path for a template: `.tmpl` dropped, `gitignore` → `.gitignore`. */
export function targetPath(templatePath: string): string {
  const stripped = templatePath.replace(/\.tmpl$/, '');
  const base = basename(stripped);
  const dir = dirname(stripped);
  const name = RENAMES[base] ?? base;
  return dir === '.' ? name : `${dir}/${name}`;
}

/** Replaces every `{{key}}`; an unknown key is a bug in the templates and throws. */
export function render(text: string, values: Record<string, string>, file = 'template'): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`${file}: unknown placeholder {{${key}}}`);
    return value;
  });
}

/** Every template file, rendered, sorted by path. */
export function renderTemplates(values: Record<string, string>, dir = TEMPLATES_DIR): TemplateFile[] {
  const files: TemplateFile[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const rel = relative(dir, full).split('\\').join('/');
        files.push({ path: targetPath(rel), content: render(readFileSync(full, 'utf8'), values, rel) });
      }
    }
  };
  walk(dir);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
