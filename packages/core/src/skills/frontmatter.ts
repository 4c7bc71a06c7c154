import type * as Yaml from 'yaml';
import { SkillsError } from './skills-error';
import { SKILL_COMPATIBILITY_MAX, SKILL_DESCRIPTION_MAX, SKILL_NAME, SKILL_NAME_MAX } from './skill-constants';

/** A skill's frontmatter as JSON: `name` and `description`, and every other field as written. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [key: string]: unknown;
}

let yaml: typeof Yaml | undefined;
/** The YAML parser is loaded with the first skill read: a server without skills does not pay for it at start. */
function loadYaml(): typeof Yaml {
  return (yaml ??= require('yaml') as typeof Yaml);
}

/** Splits SKILL.md into its YAML frontmatter and its body, as a client does to verify it. */
function splitFrontmatter(markdown: string): string {
  let text = markdown.replaceAll('\r\n', '\n');
  if (text.codePointAt(0) === 0xfeff) text = text.slice(1);
  if (!text.startsWith('---\n')) throw new SkillsError('SKILL.md must begin with a "---" line opening its YAML frontmatter');
  const rest = text.slice(4);
  const close = /^---[\t ]*$/m.exec(rest);
  if (close === null) throw new SkillsError('the frontmatter has no closing "---" line');
  return rest.slice(0, close.index);
}

/**
 * The frontmatter of a SKILL.md as a JSON object, checked against the Agent Skills rules (`name`,
 * `description`, `compatibility`, `metadata`). YAML 1.2 core schema, keys unique; anchors, aliases,
 * tags, non-string keys, `__proto__` and values JSON cannot hold are refused, so the object a
 * client parses from the same text is the same object. Throws a SkillsError saying why (the caller adds where).
 */
export function parseFrontmatter(markdown: string): SkillFrontmatter {
  const { isAlias, isCollection, isScalar, parseDocument, visit } = loadYaml();
  const doc = parseDocument(splitFrontmatter(markdown), { schema: 'core', uniqueKeys: true, merge: false, prettyErrors: false });
  if (doc.errors.length > 0) throw new SkillsError(`the frontmatter is not valid YAML: ${doc.errors[0]!.message}`);
  visit(doc, (_key, node) => {
    if (isAlias(node) || ((isScalar(node) || isCollection(node)) && node.anchor)) throw new SkillsError('anchors and aliases are not supported in frontmatter');
    if ((isScalar(node) || isCollection(node)) && node.tag && !node.tag.startsWith('tag:yaml.org,2002:')) throw new SkillsError(`the tag ${node.tag} is not supported in frontmatter`);
  });
  const value = toJson(doc.toJS({ mapAsMap: true }), 'frontmatter');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SkillsError('the frontmatter must be a mapping of keys to values');
  return checkFields(value as Record<string, unknown>);
}

function toJson(value: unknown, at: string): unknown {
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of value) {
      if (typeof key !== 'string') throw new SkillsError(`${at}: the key ${String(key)} must be a string; quote it`);
      if (key === '__proto__') throw new SkillsError(`${at}: the key "__proto__" is not supported`);
      out[key] = toJson(item, `${at}.${key}`);
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((item, index) => toJson(item, `${at}[${index}]`));
  if (typeof value === 'number' && !Number.isFinite(value)) throw new SkillsError(`${at}: ${value} cannot be represented in JSON; quote it`);
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw new SkillsError(`${at}: a ${typeof value} cannot be represented in JSON`);
}

const characters = (text: string) => [...text].length;

function checkFields(fields: Record<string, unknown>): SkillFrontmatter {
  const { name, description, compatibility, metadata } = fields;
  if (typeof name !== 'string') throw new SkillsError('the frontmatter has no "name" (a string)');
  if (name.length === 0 || name.length > SKILL_NAME_MAX || !SKILL_NAME.test(name)) {
    throw new SkillsError(`the name "${name}" must be 1-${SKILL_NAME_MAX} lowercase letters, digits and single hyphens`);
  }
  if (typeof description !== 'string' || description.trim() === '') throw new SkillsError('the frontmatter has no "description" (a non-empty string)');
  if (characters(description) > SKILL_DESCRIPTION_MAX) throw new SkillsError(`the description is longer than ${SKILL_DESCRIPTION_MAX} characters`);
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility === '' || characters(compatibility) > SKILL_COMPATIBILITY_MAX)) {
    throw new SkillsError(`"compatibility" must be a string of 1-${SKILL_COMPATIBILITY_MAX} characters`);
  }
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata) || !Object.values(metadata).every((v) => typeof v === 'string'))) {
    throw new SkillsError('"metadata" must map strings to strings');
  }
  return fields as SkillFrontmatter;
}

/** A SKILL.md made from a name, a description and a body: the YAML is double-quoted JSON strings, which YAML reads alike. */
export function manifestText(name: string, description: string, body = ''): string {
  return `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\n${body === '' ? '' : `\n${body}`}`;
}
