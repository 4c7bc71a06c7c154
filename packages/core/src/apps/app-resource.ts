import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { DefinitionError } from '../definition-error';
import { callerFile } from '../metadata/caller-file';
import type { ResourceSpec } from '../registry/build-resource-entries';
import { checkAppResource } from './app-checks';
import { supportsApps } from './tool-ui';
import { APP_MIME_TYPE, type AppResourceMeta, type AppResourceOptions } from './app-types';

interface DeclaredView {
  readonly options: AppResourceOptions;
  /** The folder of the module that declared it: what `file` is relative to. */
  readonly baseDir?: string;
}

/** Each class's own views; the scanner walks the prototype chain. */
const VIEWS = new WeakMap<Function, DeclaredView[]>();

/**
 * Declares an MCP Apps view of the server: a `ui://` resource holding an HTML5 document
 * (`text/html;profile=mcp-app`) that hosts render in a sandboxed frame for the tools naming it
 * (`@Tool({ ui: 'ui://…' })`). Checked when the class is defined: the URI, the CSP origins and
 * permissions as the spec allows them. A `file` is read when the server starts.
 */
export function AppResource(options: AppResourceOptions): ClassDecorator {
  const file = callerFile(AppResource);
  checkAppResource(options, '@AppResource');
  const view: DeclaredView = { options: { ...options }, baseDir: file ? dirname(file) : undefined };
  return (target) => {
    const own = VIEWS.get(target) ?? [];
    if (own.some((v) => v.options.uri === options.uri)) throw new DefinitionError(`@AppResource on ${target.name}: ${options.uri} is declared twice`);
    own.unshift(view); // decorators apply bottom-up: keep the order they are written in
    VIEWS.set(target, own);
  };
}

/** The views `@AppResource` declared on a class and its parents (base first), as resource specs. */
export function appResourceSpecs(ctor: Function): ResourceSpec[] {
  const chain: Function[] = [];
  for (let c: Function | null = ctor; c && c !== Function.prototype && c !== Object; c = Object.getPrototypeOf(c) as Function | null) chain.unshift(c);
  const specs: ResourceSpec[] = [];
  const seen = new Set<string>();
  for (const c of chain) {
    for (const view of VIEWS.get(c) ?? []) {
      if (seen.has(view.options.uri)) continue; // a subclass's own declaration of the same URI is the one served
      seen.add(view.options.uri);
      specs.push(specOf(view, `@AppResource on ${c.name}`));
    }
  }
  return specs;
}

function specOf({ options, baseDir }: DeclaredView, source: string): ResourceSpec {
  const { uri, name, title, description } = options;
  const meta = metaOf(options);
  const document = documentOf(options, baseDir, `${source} ${uri}`);
  return {
    uri,
    name,
    title,
    description,
    mimeType: APP_MIME_TYPE,
    ...(meta ? { _meta: { ui: meta } } : {}),
    source: `${source} ${uri}`,
    // Only a client that renders views has a use for one: the others neither list nor read it.
    visible: (caller) => supportsApps(caller.clientCapabilities),
    handler: async () => ({ contents: [{ uri, mimeType: APP_MIME_TYPE, text: await document(), ...(meta ? { _meta: { ui: meta } } : {}) }] }),
  };
}

/** `_meta.ui` of the view: what the host needs to sandbox and frame it (undefined when nothing is said). */
function metaOf(options: AppResourceOptions): AppResourceMeta | undefined {
  const meta: AppResourceMeta = {};
  if (options.csp) meta.csp = structuredClone(options.csp);
  if (options.permissions) meta.permissions = structuredClone(options.permissions);
  if (options.domain !== undefined) meta.domain = options.domain;
  if (options.prefersBorder !== undefined) meta.prefersBorder = options.prefersBorder;
  return Object.keys(meta).length > 0 ? meta : undefined;
}

/** How the document is had on each read: the inline string, the function, or the file read once now. */
function documentOf(options: AppResourceOptions, baseDir: string | undefined, where: string): () => string | Promise<string> {
  if (typeof options.html === 'string') {
    const html = options.html;
    return () => html;
  }
  if (typeof options.html === 'function') return options.html;
  const path = isAbsolute(options.file!) ? options.file! : resolve(baseDir ?? process.cwd(), options.file!);
  let html: string;
  try {
    html = readFileSync(path, 'utf8');
  } catch (err) {
    throw new DefinitionError(`${where}: cannot read its file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return () => html;
}
