import { lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, isAbsolute, sep } from 'node:path';
import type { InlineSkill } from '../metadata/skills-options';
import { manifestText, parseFrontmatter } from './frontmatter';
import { SKILL_LIMITS, SKILL_MANIFEST } from './skill-constants';
import { isPlainName } from './skill-uri';
import { SkillsError } from './skills-error';

/** One file of the skill namespace: its bytes (read once, at load) and where it came from, for messages. */
export interface TreeFile {
  readonly bytes: Uint8Array;
  readonly origin: string;
}

/** Every file the sources hold, by its `/`-separated path in the skill namespace (`tidy-notebook/SKILL.md`). */
export type SkillTree = Map<string, TreeFile>;

/**
 * Reads a folder of skills into `tree`: every file below it (dot-files and dot-folders left out),
 * read now, so nothing is read from disk while serving. A symbolic link is followed only when its
 * target (realpath) is inside the folder; one leading out is an error, as is a missing folder.
 */
export function readSkillFolder(root: string, tree: SkillTree): void {
  let realRoot: string;
  try {
    if (!statSync(root).isDirectory()) throw new SkillsError(`skills: ${root} is not a folder (give a folder holding one folder per skill)`);
    realRoot = realpathSync(root);
  } catch (err) {
    if (err instanceof SkillsError) throw err;
    throw new SkillsError(`skills: the folder ${root} does not exist or cannot be read (${(err as Error).message})`, { cause: err });
  }
  const visited = new Set<string>([realRoot]);
  const walk = (dir: string, at: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const full = join(dir, name);
      const path = at === '' ? name : `${at}/${name}`;
      if (!isPlainName(name)) throw new SkillsError(`skills: ${full}: the name cannot be served in a skill URI`);
      let stats = lstatSync(full);
      let real = full;
      if (stats.isSymbolicLink()) {
        try {
          real = realpathSync(full);
        } catch (err) {
          throw new SkillsError(`skills: ${full} is a symbolic link to nothing`, { cause: err });
        }
        if (!inside(realRoot, real)) throw new SkillsError(`skills: ${full} is a symbolic link to ${real}, outside the skills folder ${root}: links may not leave it`);
        stats = statSync(real);
      }
      if (stats.isDirectory()) {
        if (visited.has(real)) continue; // a link back to a folder already read
        visited.add(real);
        walk(full, path);
      } else if (stats.isFile()) {
        if (stats.size > SKILL_LIMITS.bytes) throw new SkillsError(`skills: ${full} is ${stats.size} bytes, more than a whole skill may hold (${SKILL_LIMITS.bytes})`);
        add(tree, path, { bytes: new Uint8Array(readFileSync(real)), origin: full });
      }
    }
  };
  walk(root, '');
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

function add(tree: SkillTree, path: string, file: TreeFile): void {
  const there = tree.get(path);
  if (there) throw new SkillsError(`skills: ${path} is given twice (by ${there.origin} and ${file.origin})`);
  tree.set(path, file);
}

const encoder = new TextEncoder();

/** Adds a skill written in code to `tree`, under `<prefix>/<name>/`; its SKILL.md is made from the name and description when not given. */
export function addInlineSkill(skill: InlineSkill, tree: SkillTree): void {
  if (skill === null || typeof skill !== 'object') throw new SkillsError(`skills: ${String(skill)} is neither a folder nor a skill ({ name, description, files })`);
  const { name, description, prefix, instructions, files = {} } = skill;
  const origin = `the skill "${String(name)}" given in code`;
  if (typeof name !== 'string' || typeof description !== 'string') throw new SkillsError(`skills: ${origin} needs a name and a description (strings)`);
  if (prefix !== undefined && (typeof prefix !== 'string' || !prefix.split('/').every(isPlainName))) {
    throw new SkillsError(`skills: ${origin}: prefix "${String(prefix)}" must be /-separated names (no empty, "." or ".." segment)`);
  }
  const base = prefix ? `${prefix}/${name}` : name;
  if (files === null || typeof files !== 'object') throw new SkillsError(`skills: ${origin}: files must map paths to text or bytes`);
  const given = new Map(Object.entries(files));
  const manifest = given.get(SKILL_MANIFEST);
  if (manifest === undefined) {
    given.set(SKILL_MANIFEST, manifestText(name, description, instructions));
  } else {
    const text = typeof manifest === 'string' ? manifest : new TextDecoder().decode(manifest);
    let written;
    try {
      written = parseFrontmatter(text);
    } catch (err) {
      throw new SkillsError(`skills: ${origin}: its SKILL.md: ${(err as Error).message}`, { cause: err });
    }
    if (written.name !== name || written.description !== description) {
      throw new SkillsError(`skills: ${origin}: its SKILL.md says name "${written.name}" and description "${written.description}", not what the skill gives`);
    }
  }
  for (const [path, content] of given) {
    if (!path.split('/').every(isPlainName)) throw new SkillsError(`skills: ${origin}: "${path}" must be a relative path of names (no empty, "." or ".." segment)`);
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) throw new SkillsError(`skills: ${origin}: "${path}" must be text or bytes`);
    add(tree, `${base}/${path}`, { bytes: typeof content === 'string' ? encoder.encode(content) : new Uint8Array(content), origin: `${origin} (${path})` });
  }
}
