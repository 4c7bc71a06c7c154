import { joinPath, type ValidationIssue } from './json-schema';

/**
 * What one call's arguments may carry, checked before any per-key work (class-transformer,
 * class-validator, a JSON Schema validator): arguments are untrusted, and turning 200,000 keys
 * into an instance costs seconds of event loop. Set server-wide (`argumentLimits`) and per tool
 * (`@Tool({ limits })`).
 */
export interface ArgumentLimits {
  /** Deepest nesting below the arguments object, which is level 1 (default 32). */
  maxDepth?: number;
  /** Most object keys plus array items in all (default 5,000). */
  maxKeys?: number;
  /** Most items in one array (default 5,000). */
  maxArrayLength?: number;
  /** Longest string, in UTF-16 code units as JavaScript counts them (default 1,048,576). */
  maxStringLength?: number;
  /**
   * Properties an input class does not declare: `'refuse'` (default) answers the call with a tool
   * error naming them, as the listed schema says (`additionalProperties: false`); `'drop'` removes
   * them. Either way, before class-transformer sees the arguments. A raw `inputSchema` decides for itself.
   */
  unknownProperties?: 'refuse' | 'drop';
}

export type ResolvedArgumentLimits = Required<ArgumentLimits>;

export const DEFAULT_ARGUMENT_LIMITS: Readonly<ResolvedArgumentLimits> = Object.freeze({
  maxDepth: 32,
  // Measured on 2 cores: the costliest shapes of 5,000 keys (a free-form object, an array of
  // nested class instances) validate in about 25 ms; past that, cost grows faster than linearly.
  maxKeys: 5_000,
  maxArrayLength: 5_000,
  maxStringLength: 1_048_576,
  unknownProperties: 'refuse',
});

const NUMERIC_LIMITS = ['maxDepth', 'maxKeys', 'maxArrayLength', 'maxStringLength'] as const;

/** Fills the gaps of `limits` from `base`, checking every value (a bad limit is a definition error, found at startup). */
export function resolveArgumentLimits(limits: ArgumentLimits | undefined, base: ResolvedArgumentLimits = DEFAULT_ARGUMENT_LIMITS, where = 'argumentLimits'): ResolvedArgumentLimits {
  if (!limits) return base;
  const out: ResolvedArgumentLimits = { ...base };
  for (const key of NUMERIC_LIMITS) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${where}.${key} must be a positive integer, got ${value}`);
    out[key] = value;
  }
  if (limits.unknownProperties !== undefined) {
    if (limits.unknownProperties !== 'refuse' && limits.unknownProperties !== 'drop') {
      throw new RangeError(`${where}.unknownProperties must be "refuse" or "drop", got ${JSON.stringify(limits.unknownProperties)}`);
    }
    out.unknownProperties = limits.unknownProperties;
  }
  return out;
}

/**
 * Walks the arguments once, without recursion, and stops at the first limit passed, so its cost
 * is bounded by the limits whatever the arguments hold. Returns the issue, or undefined.
 */
export function checkArgumentLimits(args: unknown, limits: ResolvedArgumentLimits): ValidationIssue | undefined {
  if (isFlatWithin(args, limits)) return undefined;
  const { maxDepth, maxKeys, maxArrayLength, maxStringLength } = limits;
  // Parallel stacks: the value, its depth, and how to name it (parent index and key) if it breaks a limit.
  const values: unknown[] = [args];
  const depths: number[] = [1];
  const parents: number[] = [-1];
  const names: (string | number)[] = [''];
  // Per visited value, by visit order: its parent's visit index and its name there.
  const parentOf: number[] = [];
  const nameOf: (string | number)[] = [];
  let keys = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    const parent = parents.pop()!;
    const name = names.pop()!;
    const index = parentOf.length;
    parentOf.push(parent);
    nameOf.push(name);
    if (typeof value === 'string') {
      if (value.length > maxStringLength) return issueAt(index, parentOf, nameOf, `string of ${value.length} characters is longer than the limit of ${maxStringLength}`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > maxDepth) return issueAt(index, parentOf, nameOf, `nesting deeper than the limit of ${maxDepth} levels`);
    if (Array.isArray(value)) {
      if (value.length > maxArrayLength) return issueAt(index, parentOf, nameOf, `array of ${value.length} items is longer than the limit of ${maxArrayLength}`);
      keys += value.length;
      if (keys > maxKeys) return issueAt(index, parentOf, nameOf, `the arguments hold more than ${maxKeys} keys and items in all (the limit)`);
      for (let i = value.length - 1; i >= 0; i--) push(value[i], depth + 1, index, i);
    } else {
      const own = Object.keys(value);
      keys += own.length;
      if (keys > maxKeys) return issueAt(index, parentOf, nameOf, `the arguments hold more than ${maxKeys} keys and items in all (the limit)`);
      for (let i = own.length - 1; i >= 0; i--) push((value as Record<string, unknown>)[own[i]!], depth + 1, index, own[i]!);
    }
  }
  return undefined;

  function push(value: unknown, depth: number, parent: number, name: string | number): void {
    // Scalars other than strings need no visit.
    if (value === null || (typeof value !== 'object' && typeof value !== 'string')) return;
    values.push(value);
    depths.push(depth);
    parents.push(parent);
    names.push(name);
  }
}

/**
 * The common case, an object of scalars within every limit, told without the walk's stacks. Any
 * other arguments, within the limits or not, take the walk, which names the limit passed and where.
 */
function isFlatWithin(args: unknown, limits: ResolvedArgumentLimits): boolean {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return false;
  const own = Object.keys(args);
  if (own.length > limits.maxKeys) return false;
  for (let i = 0; i < own.length; i++) {
    const value = (args as Record<string, unknown>)[own[i]!];
    if (typeof value === 'string') {
      if (value.length > limits.maxStringLength) return false;
    } else if (typeof value === 'object' && value !== null) return false;
  }
  return true;
}

function issueAt(index: number, parentOf: number[], nameOf: (string | number)[], message: string): ValidationIssue {
  return { path: pathOf(index, parentOf, nameOf), message };
}

/** `a.b[2].c` for a visited value, from the parent links. */
function pathOf(index: number, parentOf: number[], nameOf: (string | number)[]): string {
  const chain: (string | number)[] = [];
  for (let i = index; i > 0; i = parentOf[i]!) chain.push(nameOf[i]!);
  let path = '';
  for (let i = chain.length - 1; i >= 0; i--) path = joinPath(path, chain[i]!, typeof chain[i] === 'number');
  return path;
}
