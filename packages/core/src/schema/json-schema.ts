/** A JSON Schema (draft 2020-12) document or sub-schema. */
export type JsonSchema = Record<string, unknown>;

/** One validation problem. `path` is like `address.city` or `tags[1]`; '' means the root value. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Appends a property name (`a.b`) or an array index (`a[0]`) to an issue path. */
export function joinPath(parent: string, key: string | number, isIndex = false): string {
  if (isIndex) return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : String(key);
}

/** Freezes a schema tree so a cached schema cannot be changed by one of its consumers. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
