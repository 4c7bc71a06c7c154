/** A Warning (scanner.ts), written out so this file does not import its importer. */
interface Warning {
  source: string;
  message: string;
}

const TYPED_ARRAY = Object.getPrototypeOf(Uint8Array) as Function;

/** Declared return types with no JSON form, and what to return instead. */
function insteadOf(type: Function): string | undefined {
  if (type === ArrayBuffer || type === DataView || type === TYPED_ARRAY || type.prototype instanceof TYPED_ARRAY) {
    return 'return image(…) or audio(…) content, an embedded resource with a blob, or a base64 string';
  }
  if (type === WeakMap || type === WeakSet) return 'return a Map, an array or an object';
  if (type === Function || type === Symbol) return 'return the value it stands for';
  return undefined;
}

/**
 * A tool whose declared return type (TypeScript's design:returntype) has no JSON form: each call
 * would end in a tool error saying so, so the definition says it first. Dates, Maps, Sets and
 * BigInts are written in their JSON form and draw no warning.
 */
export function returnTypeWarning(owner: object, method: string, source: string): Warning | undefined {
  const type: unknown = Reflect.getMetadata('design:returntype', owner, method);
  if (typeof type !== 'function') return undefined;
  const instead = insteadOf(type);
  if (!instead) return undefined;
  const warning = { source, message: `${source}: returns ${type.name}, which has no JSON form, so every call would answer a tool error; ${instead}` };
  ownWarnings.add(warning);
  return warning;
}

/** Warnings about one entry alone: each is told, where an input class's are told once for all its tools. */
export const ownWarnings = new WeakSet<Warning>();
