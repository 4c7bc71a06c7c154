import { createHash } from 'node:crypto';
import type { SkillFrontmatter } from './frontmatter';
import { parseFrontmatter } from './frontmatter';
import { SKILL_LIMITS, SKILL_MANIFEST } from './skill-constants';
import { skillUri } from './skill-uri';
import type { SkillTree } from './skill-tree';
import { SkillsError } from './skills-error';
import { mimeTypeOf } from './mime-types';

/** A file of a skill as the wire describes it: `sha256:<hex>` of its bytes, and their length. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A skill entry as skills/list and skills/get return it. */
export interface Skill {
  uri: string;
  frontmatter: SkillFrontmatter;
  resources: SkillResource[];
}

/** One served file: what resources/read answers with. */
export interface SkillFile {
  readonly path: string;
  readonly uri: string;
  readonly bytes: Uint8Array;
  readonly digest: string;
  readonly mimeType: string;
  /** The bytes as text, when they are UTF-8 that decodes losslessly; otherwise the file is sent as a blob. */
  readonly text?: string;
  /** Set for a skill's SKILL.md: that skill's frontmatter (its resource's name and description). */
  readonly manifestOf?: SkillFrontmatter;
}

/** A child of a directory: a file, or a folder (a directory resource). */
export type DirectoryChild = { kind: 'file'; file: SkillFile } | { kind: 'dir'; path: string };

/**
 * One load of the skills: every skill's entry, every file by its path, every directory's children.
 * Immutable: a reload builds another and swaps it in.
 */
export class SkillCatalog {
  /** The entries, by URI order. */
  readonly skills: readonly Skill[];
  /** Each skill's entry by the path of its SKILL.md (`acme/refunds/SKILL.md`). */
  readonly byManifest: ReadonlyMap<string, Skill>;
  /** Every file some skill holds, by path. */
  readonly files: ReadonlyMap<string, SkillFile>;
  /** Every directory in the namespace (skill roots, their folders, the prefixes above them), by path, with its children by name. */
  readonly directories: ReadonlyMap<string, ReadonlyMap<string, DirectoryChild>>;

  private constructor(skills: Skill[], byManifest: Map<string, Skill>, files: Map<string, SkillFile>, directories: Map<string, Map<string, DirectoryChild>>) {
    this.skills = skills;
    this.byManifest = byManifest;
    this.files = files;
    this.directories = directories;
  }

  /**
   * The skills `tree` holds: every folder with a SKILL.md, nested ones included (whose files are
   * also the enclosing skill's). Throws a SkillsError for a SKILL.md whose frontmatter is invalid or
   * whose name is not its folder's, and for a skill over SKILL_LIMITS.
   */
  static build(tree: SkillTree): SkillCatalog {
    const roots = [...tree.keys()].filter((path) => path === SKILL_MANIFEST || path.endsWith(`/${SKILL_MANIFEST}`)).map((path) => path.slice(0, -SKILL_MANIFEST.length - 1));
    const frontmatters = new Map<string, SkillFrontmatter>();
    for (const root of roots) {
      const manifest = tree.get(root === '' ? SKILL_MANIFEST : `${root}/${SKILL_MANIFEST}`)!;
      if (root === '') throw new SkillsError(`skills: ${manifest.origin} is at the top of the skills folder: give the folder that holds the skill's folder`);
      let frontmatter: SkillFrontmatter;
      try {
        frontmatter = parseFrontmatter(new TextDecoder('utf-8', { fatal: true }).decode(manifest.bytes));
      } catch (err) {
        throw new SkillsError(`skills: ${manifest.origin}: ${err instanceof SkillsError ? err.message : 'not UTF-8 text'}`, { cause: err });
      }
      const folder = root.slice(root.lastIndexOf('/') + 1);
      if (frontmatter.name !== folder) throw new SkillsError(`skills: ${manifest.origin}: the name "${frontmatter.name}" must be the name of its folder ("${folder}")`);
      frontmatters.set(root, frontmatter);
    }
    const files = new Map<string, SkillFile>();
    const fileOf = (path: string): SkillFile => {
      let file = files.get(path);
      if (!file) {
        const { bytes } = tree.get(path)!;
        const manifestOf = path.endsWith(SKILL_MANIFEST) ? frontmatters.get(path.slice(0, -SKILL_MANIFEST.length - 1)) : undefined;
        file = {
          path,
          uri: skillUri(path),
          bytes,
          digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
          mimeType: mimeTypeOf(path, bytes),
          ...textOf(bytes),
          ...(manifestOf ? { manifestOf } : {}),
        };
        files.set(path, file);
      }
      return file;
    };
    const skills: Skill[] = [];
    const byManifest = new Map<string, Skill>();
    for (const root of roots) {
      const manifestPath = `${root}/${SKILL_MANIFEST}`;
      const paths = [...tree.keys()].filter((path) => path.startsWith(`${root}/`)).sort((a, b) => (a === manifestPath ? -1 : b === manifestPath ? 1 : a < b ? -1 : a > b ? 1 : 0));
      const own = paths.map(fileOf);
      const bytes = own.reduce((sum, file) => sum + file.bytes.byteLength, 0);
      const origin = tree.get(manifestPath)!.origin;
      if (own.length > SKILL_LIMITS.files) throw new SkillsError(`skills: the skill at ${origin} has ${own.length} files, more than the ${SKILL_LIMITS.files} a skill may hold`);
      if (bytes > SKILL_LIMITS.bytes) throw new SkillsError(`skills: the skill at ${origin} holds ${bytes} bytes, more than the ${SKILL_LIMITS.bytes} (16 MiB) a skill may hold`);
      const skill: Skill = { uri: skillUri(manifestPath), frontmatter: frontmatters.get(root)!, resources: own.map(({ uri, digest, bytes: b }) => ({ uri, digest, size: b.byteLength })) };
      skills.push(skill);
      byManifest.set(manifestPath, skill);
    }
    skills.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    return new SkillCatalog(skills, byManifest, files, directoriesOf(files));
  }
}

function directoriesOf(files: ReadonlyMap<string, SkillFile>): Map<string, Map<string, DirectoryChild>> {
  const directories = new Map<string, Map<string, DirectoryChild>>();
  for (const file of [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const names = file.path.split('/');
    for (let depth = 1; depth < names.length; depth++) {
      const dir = names.slice(0, depth).join('/');
      const children = directories.get(dir) ?? new Map<string, DirectoryChild>();
      directories.set(dir, children);
      const name = names[depth]!;
      if (!children.has(name)) children.set(name, depth === names.length - 1 ? { kind: 'file', file } : { kind: 'dir', path: `${dir}/${name}` });
    }
  }
  return directories;
}

/** `{ text }` when the bytes are UTF-8 that decodes to the same bytes (a BOM kept), else nothing: the file goes as a blob. */
function textOf(bytes: Uint8Array): { text?: string } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return {};
  }
}

/** What changed between two loads, by skill URI. */
export interface SkillChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Skills whose files, digests or frontmatter differ. */
  readonly changed: readonly string[];
  /** Whether anything did. */
  readonly listChanged: boolean;
}

export function changesBetween(before: SkillCatalog, after: SkillCatalog): SkillChanges {
  const old = new Map(before.skills.map((skill) => [skill.uri, JSON.stringify(skill)]));
  const now = new Map(after.skills.map((skill) => [skill.uri, JSON.stringify(skill)]));
  const added = [...now.keys()].filter((uri) => !old.has(uri));
  const removed = [...old.keys()].filter((uri) => !now.has(uri));
  const changed = [...now.keys()].filter((uri) => old.has(uri) && old.get(uri) !== now.get(uri));
  return { added, removed, changed, listChanged: added.length + removed.length + changed.length > 0 };
}
