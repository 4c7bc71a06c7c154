import { SKILL_SCHEME } from './skill-constants';

/** A skill URI for a `/`-separated path of plain names: each segment percent-encoded on its own. */
export function skillUri(path: string): string {
  return SKILL_SCHEME + path.split('/').map(encodeURIComponent).join('/');
}

/**
 * The `/`-separated path of plain names a `skill://` URI names, or undefined when it names none: another
 * scheme, a query or fragment, a malformed escape, or a segment that is empty, `.` or `..` (written
 * plainly or encoded, `%2e%2e`) or decodes to something holding `/`, `\` or NUL. What it returns is
 * only ever a key to look up among the files a catalog holds: nothing joins it to a filesystem path.
 */
export function pathOfSkillUri(uri: string): string | undefined {
  if (!uri.startsWith(SKILL_SCHEME)) return undefined;
  const rest = uri.slice(SKILL_SCHEME.length);
  if (rest === '' || /[?#]/.test(rest)) return undefined;
  const names: string[] = [];
  for (const segment of rest.split('/')) {
    const name = decodeSegment(segment);
    if (name === undefined || !isPlainName(name)) return undefined;
    names.push(name);
  }
  return names.join('/');
}

/** A file or folder name a skill may hold: not empty, not `.` or `..`, no separator or NUL. */
export function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
