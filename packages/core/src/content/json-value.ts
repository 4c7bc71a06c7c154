import { ToolError } from './tool-error';

/**
 * A handler's value made JSON before it is written: what JSON.stringify would lose silently or
 * throw on becomes its obvious JSON form (a Date its ISO string, a Map an object, a Set an array,
 * a safe BigInt a number); what has none is a ToolError naming the type and where it is. A value
 * of plain JSON is returned as it is, without a copy: only what changes is copied.
 */
export function toJsonValue(value: unknown, root = 'result'): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'bigint')) return value;
  return new JsonWalk(root).walk(value);
}

/** Past this depth each object is checked against its ancestors: only a cycle gets that deep. */
const CYCLE_CHECK_DEPTH = 64;

/**
 * One walk over a value. The way down is kept as a stack of objects and keys and spelt out only
 * for an error, so a value with nothing to change costs a visit of each object and nothing more.
 */
class JsonWalk {
  private readonly ancestors: object[] = [];
  private readonly keys: (string | number)[] = [];

  constructor(private readonly root: string) {}

  walk(value: unknown): unknown {
    if (typeof value === 'bigint') return this.bigint(value);
    if (value === null || typeof value !== 'object') return value; // JSON drops functions, symbols and undefined in objects as usual
    const { ancestors } = this;
    if (ancestors.length >= CYCLE_CHECK_DEPTH && ancestors.includes(value)) this.fail('refers back to an object that contains it (a cycle)');
    // No try/finally: an error ends the whole walk, so the stacks are not needed after it.
    ancestors.push(value);
    const made = this.object(value);
    ancestors.pop();
    return made;
  }

  private object(value: object): unknown {
    if (Array.isArray(value)) return this.items(value);
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return this.properties(value as Record<string, unknown>);
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (value instanceof Map) return this.map(value);
    if (value instanceof Set) return this.items([...value]);
    const none = withoutJsonForm(value);
    if (none) this.fail(`is ${none}`);
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      const json = (value as { toJSON(key: string): unknown }).toJSON('');
      if (json !== value) return this.walk(json);
    }
    // A class instance: JSON writes its own enumerable properties, so those are what is checked.
    return this.properties(value as Record<string, unknown>);
  }

  private items(items: readonly unknown[]): unknown[] {
    let copy: unknown[] | undefined;
    const { keys } = this;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item === null || (typeof item !== 'object' && typeof item !== 'bigint')) continue;
      keys.push(i);
      const made = this.walk(item);
      keys.pop();
      if (made !== item) (copy ??= items.slice())[i] = made;
    }
    return copy ?? (items as unknown[]);
  }

  private properties(record: Record<string, unknown>): Record<string, unknown> {
    let copy: Record<string, unknown> | undefined;
    const { keys } = this;
    // for…in with an own-property check: no array of keys allocated per object.
    for (const key in record) {
      if (!hasOwn(record, key)) continue;
      const item = record[key];
      if (item === null || (typeof item !== 'object' && typeof item !== 'bigint')) continue;
      keys.push(key);
      const made = this.walk(item);
      keys.pop();
      // defineProperty, not assignment: a "__proto__" key stays a property.
      if (made !== item) Object.defineProperty((copy ??= plainCopy(record)), key, { value: made, enumerable: true, writable: true, configurable: true });
    }
    return copy ?? record;
  }

  /** A Map as an object of its entries, when every key is a string or a number (what a JSON key can be). */
  private map(map: Map<unknown, unknown>): Record<string, unknown> {
    const entries: [string, unknown][] = [];
    for (const [key, item] of map) {
      if (typeof key !== 'string' && typeof key !== 'number') {
        this.fail(`is a Map with a key of type ${key === null ? 'null' : typeof key}, which a JSON object cannot have: return an array of entries`);
      }
      this.keys.push(String(key));
      entries.push([String(key), this.walk(item)]);
      this.keys.pop();
    }
    return Object.fromEntries(entries);
  }

  private bigint(value: bigint): number {
    if (value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER) return Number(value);
    this.fail(`is a BigInt (${value}) beyond the safe integer range of a JSON number: return it as a string`);
  }

  private fail(what: string): never {
    const path = this.keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
    throw new ToolError(`${this.root}${path} ${what}`);
  }
}

const hasOwn = (record: object, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key);

/** A plain copy of own enumerable properties, "__proto__" included as a property. */
function plainCopy(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(record).map((key) => [key, record[key]]));
}

/** Objects that mean something JSON cannot say, and what to return instead. */
function withoutJsonForm(value: object): string | undefined {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return `binary data (${value.constructor.name}): return image(…) or audio(…) content, an embedded resource with a blob, or a base64 string`;
  }
  if (value instanceof Promise) return 'a Promise: await it before returning';
  if (value instanceof WeakMap || value instanceof WeakSet) return `a ${value.constructor.name}, whose entries cannot be listed: return a Map, an array or an object`;
  return undefined;
}
