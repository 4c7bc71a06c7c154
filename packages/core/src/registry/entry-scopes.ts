import { DefinitionError } from '../definition-error';
import { checkMiddleware, type Middleware } from '../context/middleware';

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

/** An entry's own middleware, checked and frozen; nothing at all when it has none (the pipeline then never looks). */
export function middlewareOf(middleware: readonly Middleware[] | undefined, source: string): { middleware?: readonly Middleware[] } {
  const list = checkMiddleware(middleware, source);
  return list.length > 0 ? { middleware: list } : {};
}
