import { dirname, isAbsolute, resolve } from 'node:path';
import type { CacheHint } from '../protocol/cache-hint';
import { callerFile } from './caller-file';

/**
 * One skill written in code: its name and description (the `SKILL.md` frontmatter), and its files.
 * `files['SKILL.md']`, when given, is the skill's `SKILL.md` as written (its frontmatter must say
 * the same `name` and `description`); otherwise one is made from `name`, `description` and
 * `instructions`. Served at `skill://<prefix>/<name>/<file>`.
 */
export interface InlineSkill {
  /** The skill's name: 1-64 lowercase letters, digits and single hyphens (Agent Skills). */
  name: string;
  /** What the skill does and when to use it: 1-1024 characters. */
  description: string;
  /** The organizational prefix before the name, `/`-separated (`acme/billing`); none by default. */
  prefix?: string;
  /** The body of the generated `SKILL.md` (ignored when `files` holds one). */
  instructions?: string;
  /** The skill's files by their path in the skill (`'SKILL.md'`, `'reference/tags.md'`): text or bytes. */
  files?: Readonly<Record<string, string | Uint8Array>>;
}

/** Where skills come from: a folder of skill folders (a path), or a skill written in code. */
export type SkillSource = string | InlineSkill;

/** The skills a server serves, with how they are served. */
export interface SkillsSettings {
  /** Folders of skills (each subfolder holding a SKILL.md is a skill) and skills written in code. */
  sources: readonly SkillSource[];
  /** Watch the folders and reload when a file changes (clients hear notifications/resources/list_changed). Default false. */
  watch?: boolean;
  /** Caching hints on skills/list, skills/get, resources/directory/read and skill file reads (2026-07-28 only). Default ttlMs 0, private. */
  cache?: Partial<CacheHint>;
  /** Whether `resources/directory/read` is served and `directoryRead: true` declared. Default true. */
  directoryRead?: boolean;
}

/**
 * `@Server({ skills })` and the `skills` option: a folder (`'./skills'`), a skill written in code,
 * a list of both, or SkillsSettings. In `@Server`, a relative folder is resolved against the file
 * that declares the class; in the option (and `mcpx serve --skills`), against the working directory.
 */
export type SkillsOption = SkillSource | readonly SkillSource[] | SkillsSettings;

/** The engine option (`listen(server, { skills })`, `mcpx serve --skills DIR`), served with `@Server`'s skills. */
export interface SkillsEngineOptions {
  /** Skills served with those of `@Server({ skills })`; relative folders resolve against the working directory (docs/skills.md). */
  skills?: SkillsOption;
}

/** The option as settings: its sources listed, nothing else changed. */
export function skillsSettingsOf(option: SkillsOption): SkillsSettings {
  if (typeof option === 'string' || Array.isArray(option)) return { sources: typeof option === 'string' ? [option] : (option as readonly SkillSource[]) };
  if (typeof option === 'object' && option !== null && 'sources' in option) return option as SkillsSettings;
  return { sources: [option as InlineSkill] };
}

/** The option with every relative folder resolved against `base`. */
export function resolveSkillFolders(option: SkillsOption, base: string): SkillsSettings {
  const settings = skillsSettingsOf(option);
  if (!Array.isArray(settings.sources)) return settings;
  return { ...settings, sources: settings.sources.map((source) => (typeof source === 'string' && !isAbsolute(source) ? resolve(base, source) : source)) };
}

/** The folder of the module that called `callee` (declares a `@Server` class); undefined when the stack does not say (then folders resolve against the working directory). */
export function callerFolder(callee: Function): string | undefined {
  const file = callerFile(callee);
  return file && dirname(file);
}
