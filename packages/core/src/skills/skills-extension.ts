import { watch, type FSWatcher } from 'node:fs';
import type { ExtensionMethod, ExtensionServer, McpExtension } from '../context/extension';
import type { Middleware } from '../context/middleware';
import type { RequestContext } from '../context/request-context';
import { checkOptions } from '../metadata/check-options';
import { resolveSkillFolders, type SkillsOption, type SkillsSettings } from '../metadata/skills-options';
import type { CacheHint } from '../protocol/cache-hint';
import { McpError } from '../protocol/errors';
import { cacheHintOf } from '../registry/entry-cache';
import { SkillCatalog, changesBetween, type SkillChanges, type SkillFile } from './skill-catalog';
import { DIRECTORY_MIME_TYPE, RESOURCES_DIRECTORY_READ_METHOD, SKILL_SCHEME, SKILLS_EXTENSION_ID, SKILLS_GET_METHOD, SKILLS_LIST_METHOD } from './skill-constants';
import { addInlineSkill, readSkillFolder, type SkillTree } from './skill-tree';
import { pathOfSkillUri, skillUri } from './skill-uri';
import { SkillsError } from './skills-error';

const SETTINGS_KEYS = ['sources', 'watch', 'cache', 'directoryRead'] as const;
/** The template every skill file is read through (resources/read), under the extension's name. */
const FILE_TEMPLATE = `${SKILL_SCHEME}{+path}`;
/** Where the middleware leaves the file a resources/read names, for the template's handler. */
const FILE_READ = Symbol('skill file read');
/** How long the watcher waits for a burst of file events to end before reloading. */
const WATCH_SETTLE_MS = 100;

/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) over a catalog loaded from
 * folders and skills written in code: skills/list, skills/get, resources/directory/read, and every
 * file readable through resources/read at `skill://<skill-path>/<file-path>`. Declared in
 * `capabilities.extensions` in both eras (the official client reads it there in 2025-11-25 too).
 */
export class SkillsExtension implements McpExtension {
  readonly id = SKILLS_EXTENSION_ID;
  readonly legacyCapability = 'extensions' as const;
  readonly settings: Record<string, unknown>;
  readonly methods: readonly ExtensionMethod[];
  readonly middleware: readonly Middleware[];
  private catalog: SkillCatalog;
  private readonly cache: CacheHint;
  private server?: ExtensionServer;
  private readonly watchers: FSWatcher[] = [];

  /** Loads every source now: a SkillsError for a missing folder, invalid frontmatter, a skill over the limits, a link leaving its folder. */
  constructor(private readonly config: SkillsSettings) {
    if (!Array.isArray(config.sources)) throw new SkillsError('skills: sources must be a list of folders and skills');
    const hint = cacheHintOf(config.cache, 'skills');
    this.cache = { ttlMs: hint?.ttlMs ?? 0, cacheScope: hint?.cacheScope ?? 'private' };
    this.catalog = this.load();
    const directoryRead = config.directoryRead ?? true;
    this.settings = directoryRead ? { directoryRead: true } : {};
    this.methods = [
      { name: SKILLS_LIST_METHOD, handler: (params, ctx) => this.list(params, ctx) },
      { name: SKILLS_GET_METHOD, handler: (params, ctx) => this.get(params, ctx) },
      ...(directoryRead ? [{ name: RESOURCES_DIRECTORY_READ_METHOD, handler: (params: Record<string, unknown>, ctx: RequestContext) => this.readDirectory(params, ctx) }] : []),
    ];
    // resources/read of a skill:// URI this catalog does not serve answers -32602 with the URI, as the spec says, whatever its spelling.
    this.middleware = [
      async (ctx, next) => {
        const uri = ctx.resourceUri;
        if (ctx.method === 'resources/read' && uri?.startsWith(SKILL_SCHEME)) ctx.state.set(FILE_READ, { uri, file: this.fileAt(uri) ?? unknownFile(uri) });
        return next();
      },
    ];
  }

  /** The skills served now. */
  get skills(): SkillCatalog['skills'] {
    return this.catalog.skills;
  }

  setup(server: ExtensionServer): void {
    this.server = server;
    this.registerTemplate();
    if (this.config.watch) this.watch();
  }

  /**
   * Reads every source again and swaps the new skills in (digests follow the files). When a skill
   * changed, clients hear notifications/resources/list_changed (2025 sessions, and 2026
   * subscriptions/listen streams), and subscribers of a changed file notifications/resources/updated.
   * A source that cannot be loaded rejects, and the skills served stay as they were.
   */
  async reload(): Promise<SkillChanges> {
    const before = this.catalog;
    const after = this.load();
    this.catalog = after;
    const changes = changesBetween(before, after);
    if (changes.listChanged && this.server) {
      this.registerTemplate();
      for (const [path, file] of before.files) if (after.files.get(path)?.digest !== file.digest) this.server.resourceUpdated(file.uri);
      this.server.logger.info({ skills: changes }, 'skills reloaded');
    }
    return changes;
  }

  /** Stops watching the folders. */
  close(): void {
    for (const watcher of this.watchers.splice(0)) watcher.close();
  }

  private load(): SkillCatalog {
    const tree: SkillTree = new Map();
    for (const source of this.config.sources) {
      if (typeof source === 'string') readSkillFolder(source, tree);
      else addInlineSkill(source, tree);
    }
    return SkillCatalog.build(tree);
  }

  /** The template reads go through; registered again (replaced) after a change, which is what raises list_changed. */
  private registerTemplate(): void {
    this.server!.registry.addResourceTemplate(
      {
        name: SKILLS_EXTENSION_ID,
        uriTemplate: FILE_TEMPLATE,
        title: 'Skills',
        description: `The files of the skills this server serves (${this.catalog.skills.length}; skills/list lists them)`,
        cache: this.cache,
        handler: (variables, ctx) => this.read(variables, ctx),
      },
      { replace: true },
    );
  }

  private watch(): void {
    let timer: NodeJS.Timeout | undefined;
    const settle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void this.reload().catch((err) => this.server?.logger.warn({ err }, 'skills: the reload failed; the skills served are unchanged')), WATCH_SETTLE_MS);
      timer.unref();
    };
    for (const source of this.config.sources) if (typeof source === 'string') this.watchers.push(watch(source, { recursive: true, persistent: false }, settle));
  }

  private fileAt(uri: string): SkillFile | undefined {
    const path = pathOfSkillUri(uri);
    return path === undefined ? undefined : this.catalog.files.get(path);
  }

  private read(variables: Record<string, string | string[]>, ctx: RequestContext) {
    const asked = ctx.state.get(FILE_READ) as { uri: string; file: SkillFile } | undefined;
    const uri = asked?.uri ?? `${SKILL_SCHEME}${String(variables.path)}`;
    const file = asked?.file ?? this.fileAt(skillUri(String(variables.path))) ?? unknownFile(uri);
    const content = file.text !== undefined ? { uri, mimeType: file.mimeType, text: file.text } : { uri, mimeType: file.mimeType, blob: Buffer.from(file.bytes).toString('base64') };
    return { contents: [content] };
  }

  private list(params: Record<string, unknown>, ctx: RequestContext) {
    const { items, nextCursor } = page(this.catalog.skills, params, ctx);
    return { skills: items, ...(nextCursor ? { nextCursor } : {}), ...this.cacheFields(ctx) };
  }

  private get(params: Record<string, unknown>, ctx: RequestContext) {
    const uri = uriParam(params, ctx.method);
    const path = pathOfSkillUri(uri);
    const skill = path === undefined ? undefined : this.catalog.byManifest.get(path);
    if (!skill) throw McpError.invalidParams(`No skill is served at ${uri}`);
    return { skill, ...this.cacheFields(ctx) };
  }

  private readDirectory(params: Record<string, unknown>, ctx: RequestContext) {
    const uri = uriParam(params, ctx.method);
    const path = pathOfSkillUri(uri);
    const children = path === undefined ? undefined : this.catalog.directories.get(path);
    if (!children) throw McpError.invalidParams(path !== undefined && this.catalog.files.has(path) ? `${uri} is not a directory resource` : `No directory resource is served at ${uri}`);
    const resources = [...children].map(([name, child]) => {
      if (child.kind === 'dir') return { uri: skillUri(child.path), name, mimeType: DIRECTORY_MIME_TYPE };
      const { file } = child;
      const described = file.manifestOf ? { name: file.manifestOf.name, description: file.manifestOf.description } : { name };
      return { uri: file.uri, ...described, mimeType: file.mimeType, size: file.bytes.byteLength };
    });
    const { items, nextCursor } = page(resources, params, ctx);
    return { resources: items, ...(nextCursor ? { nextCursor } : {}), ...this.cacheFields(ctx) };
  }

  /** `ttlMs` and `cacheScope`: 2026-07-28 results extend CacheableResult; 2025-11-25 ones have no such fields. */
  private cacheFields(ctx: RequestContext): Partial<CacheHint> {
    return ctx.env.era === 'modern' ? { ...this.cache } : {};
  }
}

function unknownFile(uri: string): never {
  throw McpError.invalidParams(`No skill file is served at ${uri}`, { uri });
}

function uriParam(params: Record<string, unknown>, method: string): string {
  if (typeof params.uri !== 'string') throw McpError.invalidParams(`${method} needs params.uri, a string`);
  return params.uri;
}

/** One page of `items` from `params.cursor` (an offset this server issued), at the server's page size. */
function page<T>(items: readonly T[], params: Record<string, unknown>, ctx: RequestContext): { items: T[]; nextCursor?: string } {
  const { cursor } = params;
  let start = 0;
  if (cursor !== undefined) {
    const offset = typeof cursor === 'string' ? /^skills:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))?.[1] : undefined;
    if (offset === undefined) throw McpError.invalidParams(`Invalid cursor for ${ctx.method}: ${JSON.stringify(cursor)}`);
    start = Number(offset);
  }
  const end = start + ctx.engine.options.pageSize;
  return { items: items.slice(start, end), ...(end < items.length ? { nextCursor: Buffer.from(`skills:${end}`).toString('base64url') } : {}) };
}

/** The extension for `@Server({ skills })` and the `skills` option together (relative folders of the option from the working directory); none when neither is given. */
export function skillsExtensions(fromServer: SkillsOption | undefined, fromOptions: SkillsOption | undefined): McpExtension[] {
  const given = [fromServer, fromOptions].filter((option) => option !== undefined).map((option) => resolveSkillFolders(option, process.cwd()));
  if (given.length === 0) return [];
  for (const settings of given) checkOptions('skills', settings, SETTINGS_KEYS);
  const merged: SkillsSettings = {
    sources: given.flatMap((settings) => settings.sources),
    watch: given.some((settings) => settings.watch),
    ...(given.some((settings) => settings.cache) ? { cache: Object.assign({}, ...given.map((settings) => settings.cache)) } : {}),
    directoryRead: given.every((settings) => settings.directoryRead ?? true),
  };
  return [new SkillsExtension(merged)];
}
