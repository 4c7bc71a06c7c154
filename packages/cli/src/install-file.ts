import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from './errors';

/**
 * A client's configuration file changed by one entry, and nothing else: the file is edited as
 * text at the spans a small JSON parser found, so other servers, other settings, key order,
 * indentation, comments (where the client allows them) and the final newline stay byte for byte.
 * Re-serialising the whole object would reflow whatever the user or the client formatted its way.
 */

/** A parsed value with where it sits in the text. */
interface Node {
  start: number;
  end: number;
  value: unknown;
  /** For an object: its members in order. */
  members?: Member[];
}

interface Member {
  key: string;
  keyStart: number;
  node: Node;
}

/** What an install did to the text. */
export type Change = 'added' | 'replaced' | 'unchanged';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// Escapes and control characters are JSON.parse's to check, in string() below.
const STRING = /"(?:[^"\\]|\\[^])*"/y;

/** JSON, or with `jsonc` JSON with comments and trailing commas (VS Code's and Gemini CLI's files). */
function parseJson(text: string, jsonc: boolean): Node {
  let i = 0;
  const fail = (expected: string): never => {
    const before = text.slice(0, i).split('\n');
    const found = i < text.length ? JSON.stringify(text[i]) : 'the end';
    throw new SyntaxError(`line ${before.length}, column ${before.at(-1)!.length + 1}: expected ${expected}, found ${found}`);
  };
  const skip = (): void => {
    for (;;) {
      while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
      if (!jsonc || text[i] !== '/') return;
      if (text[i + 1] === '/') {
        while (i < text.length && text[i] !== '\n') i++;
      } else if (text[i + 1] === '*') {
        const close = text.indexOf('*/', i + 2);
        if (close < 0) fail('the end of a /* comment */');
        i = close + 2;
      } else return;
    }
  };
  const token = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = i;
    const match = pattern.exec(text)?.[0];
    if (match !== undefined) i += match.length;
    return match;
  };
  const string = (expected: string): string => {
    const start = i;
    const literal = token(STRING) ?? fail(expected);
    try {
      return JSON.parse(literal) as string;
    } catch {
      i = start;
      return fail(`${expected} (an escape or a control character in it is not JSON)`);
    }
  };
  const value = (): Node => {
    const start = i;
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') {
      i++;
      const items: unknown[] = [];
      skip();
      while (text[i] !== ']') {
        items.push(value().value);
        skip();
        if (text[i] === ',') {
          i++;
          skip();
          if (text[i] === ']' && !jsonc) fail('a value');
        } else if (text[i] !== ']') fail("',' or ']'");
      }
      i++;
      return { start, end: i, value: items };
    }
    if (c === '"') return { start, value: string('a "string"'), end: i };
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) return { start, end: (i += word.length), value: literal };
    }
    const number = token(NUMBER);
    if (number === undefined) fail('a value');
    return { start, end: i, value: Number(number) };
  };
  const object = (): Node => {
    const start = i++;
    const members: Member[] = [];
    const result: Record<string, unknown> = {};
    skip();
    while (text[i] !== '}') {
      const keyStart = i;
      const key = string('a "key" or \'}\'');
      skip();
      if (text[i] !== ':') fail("':'");
      i++;
      skip();
      const node = value();
      members.push({ key, keyStart, node });
      // defineProperty: a "__proto__" key is data here, as JSON.parse makes it.
      Object.defineProperty(result, members.at(-1)!.key, { value: node.value, enumerable: true, writable: true, configurable: true });
      skip();
      if (text[i] === ',') {
        i++;
        skip();
        if (text[i] === '}' && !jsonc) fail('a "key"');
      } else if (text[i] !== '}') fail("',' or '}'");
    }
    i++;
    return { start, end: i, value: result, members };
  };
  skip();
  const root = value();
  skip();
  if (i < text.length) fail('the end');
  return root;
}

/** Equal as JSON, whatever the key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** How the file is written: its indentation unit (2 or 4 spaces, a tab...) and line ending. */
function styleOf(text: string): { unit: string; newline: string } {
  return { unit: /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ', newline: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** The whitespace that starts the line `at` is on. */
function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** A value as JSON.stringify lays it out with the file's unit, its later lines under `indent`. */
function render(value: unknown, unit: string, indent: string, newline: string): string {
  return JSON.stringify(value, null, unit)
    .split('\n')
    .join(newline + indent);
}

/** Whether an object's members sit one per line (else it is written on one line, and kept so). */
function multiline(text: string, object: Node): boolean {
  const first = object.members?.[0];
  return first ? text.slice(object.start + 1, first.keyStart).includes('\n') : true;
}

/** `object` with a member added at its end, laid out like its other members. */
function addMember(text: string, object: Node, key: string, value: unknown, style: { unit: string; newline: string }): string {
  const members = object.members!;
  const { unit, newline } = style;
  if (members.length === 0) {
    const indent = lineIndent(text, object.start);
    const inside = text.slice(object.start + 1, object.end - 1).trimEnd();
    const member = `${JSON.stringify(key)}: ${render(value, unit, indent + unit, newline)}`;
    return `${text.slice(0, object.start + 1)}${inside}${newline}${indent}${unit}${member}${newline}${indent}${text.slice(object.end - 1)}`;
  }
  const last = members.at(-1)!.node;
  const member = multiline(text, object)
    ? `,${newline}${lineIndent(text, members[0]!.keyStart)}${JSON.stringify(key)}: ${render(value, unit, lineIndent(text, members[0]!.keyStart), newline)}`
    : `, ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  return text.slice(0, last.end) + member + text.slice(last.end);
}

/** The root object and its servers object (undefined when the key is missing), or why the file cannot take an entry. */
function locate(text: string, key: string, jsonc: boolean, path: string): { root: Node; servers?: Node } {
  let root: Node;
  try {
    root = parseJson(text, jsonc);
  } catch (err) {
    // Never overwrite what cannot be read back: it may hold the user's other servers.
    const what = jsonc ? 'JSON (comments allowed)' : 'JSON';
    throw new CliError(`${path} is not valid ${what}: ${(err as Error).message}; fix or move it (nothing was changed)`, 1, { cause: err });
  }
  if (!root.members) throw new CliError(`${path} does not hold a JSON object; fix or move it (nothing was changed)`, 1);
  const servers = root.members.find((m) => m.key === key)?.node;
  if (servers && !servers.members) throw new CliError(`${path}: "${key}" is not an object; fix it by hand (nothing was changed)`, 1);
  return { root, servers };
}

/**
 * The file's text with `entry` under `key`.`name`: added, replaced (only with `force`), or left as
 * it is when the same entry is there. A file that is empty or only whitespace counts as `{}`.
 */
export function withEntry(
  text: string,
  options: { key: string; name: string; entry: Record<string, unknown>; force: boolean; jsonc: boolean; path: string },
): { text: string; change: Change } {
  const { key, name, entry, path } = options;
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  if (body.trim() === '') return { text: `${bom}${JSON.stringify({ [key]: { [name]: entry } }, null, 2)}\n`, change: 'added' };
  const style = styleOf(body);
  const { root, servers } = locate(body, key, options.jsonc, path);
  if (!servers) return { text: bom + addMember(body, root, key, { [name]: entry }, style), change: 'added' };
  const existing = servers.members!.find((m) => m.key === name);
  if (!existing) return { text: bom + addMember(body, servers, name, entry, style), change: 'added' };
  if (sameJson(existing.node.value, entry)) return { text, change: 'unchanged' };
  if (!options.force) {
    throw new CliError(`${path} already has a server named "${name}", set up otherwise: --force replaces it, --name <name> installs this one beside it`, 1);
  }
  const rendered = multiline(body, servers) ? render(entry, style.unit, lineIndent(body, existing.keyStart), style.newline) : JSON.stringify(entry);
  return { text: bom + body.slice(0, existing.node.start) + rendered + body.slice(existing.node.end), change: 'replaced' };
}

/** The file's text without `key`.`name`; an error when it is not there. */
export function withoutEntry(text: string, options: { key: string; name: string; jsonc: boolean; path: string }): string {
  const { key, name, path } = options;
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  const { servers } = body.trim() === '' ? { servers: undefined } : locate(body, key, options.jsonc, path);
  const members = servers?.members ?? [];
  const at = members.findIndex((m) => m.key === name);
  if (!servers || at < 0) throw new CliError(`"${name}" is not installed in ${path}${members.length ? ` (it has: ${members.map((m) => m.key).join(', ')})` : ''}`, 1);
  // The last one leaves `{}`; another goes from the end of the previous member (its comma with it),
  // the first up to the next member.
  const [from, to] = members.length === 1 ? [servers.start + 1, servers.end - 1] : at > 0 ? [members[at - 1]!.node.end, members[at]!.node.end] : [members[0]!.keyStart, members[1]!.keyStart];
  return bom + body.slice(0, from) + body.slice(to);
}

/** The file's text, or undefined when there is none. */
export function readText(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    if (statSync(path).isDirectory()) throw new Error('it is a folder');
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`, 1, { cause: err });
  }
}

/**
 * Writes `text` to `path` through a temporary file renamed over it, so the client never reads half
 * a file; an existing file is first copied to `<path>.bak` (replacing an older backup). A symlinked
 * file (dotfiles kept in a repository) is written where it points, and keeps its permissions:
 * ~/.claude.json holds tokens. Returns the backup's path.
 */
export function writeText(path: string, text: string, existed: boolean): string | undefined {
  const target = existed && lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.mcpx.tmp`);
  let backup: string | undefined;
  try {
    mkdirSync(dirname(target), { recursive: true });
    if (existed) {
      backup = `${path}.bak`;
      copyFileSync(path, backup);
    }
    writeFileSync(temporary, text);
    if (existed) chmodSync(temporary, statSync(target).mode & 0o7777);
    renameSync(temporary, target);
  } catch (err) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw new CliError(`cannot write ${path}: ${(err as Error).message}`, 1, { cause: err });
  }
  return backup;
}
