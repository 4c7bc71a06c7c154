import { DefinitionError } from './definition-error';

/** An entry's scopes: OAuth scope tokens (RFC 6749 §3.3: printable ASCII without space, quote or backslash). */
export function scopesOf(scopes: string[] | undefined, source: string): readonly string[] {
  if (scopes === undefined) return [];
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) {
      throw new DefinitionError(`${source}: ${JSON.stringify(scope)} is not a valid OAuth scope`);
    }
  }
  return Object.freeze([...new Set(scopes)]);
}
