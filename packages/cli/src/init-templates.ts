import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { CLI_DIR, type TemplateName } from './init-package-json';

export const TEMPLATES_DIR = join(CLI_DIR, 'templates');
/** The app template's own files, written over the default template's (same path: the app's wins). */
export const APP_TEMPLATES_DIR = join(CLI_DIR, 'templates-app');

/** What `mcpx init --template <name>` writes: each folder's files in turn, a later folder's replacing an earlier one's. */
export const TEMPLATES: Record<TemplateName, { dirs: string[] }> = {
  default: { dirs: [TEMPLATES_DIR] },
  app: { dirs: [TEMPLATES_DIR, APP_TEMPLATES_DIR] },
};

export function isTemplateName(name: string): name is TemplateName {
  return Object.prototype.hasOwnProperty.call(TEMPLATES, name);
}

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

/** Every file of a template, rendered, sorted by path. */
export function renderTemplate(template: TemplateName, values: Record<string, string>): TemplateFile[] {
  const files = new Map<string, TemplateFile>();
  for (const dir of TEMPLATES[template].dirs) for (const file of renderTemplates(values, dir)) files.set(file.path, file);
  return [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
}
