import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, type ValidationError, type ValidatorOptions } from 'class-validator';
import { classToJsonSchema } from './class-schema';
import { joinPath, type JsonSchema, type ValidationIssue } from './json-schema';

export type { ValidationIssue } from './json-schema';

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

// Unknown properties are errors, matching `additionalProperties: false` in the generated schema.
const INPUT_OPTIONS: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };
// Outputs are checked leniently: unknown properties are stripped (from a copy), not reported.
const OUTPUT_OPTIONS: ValidatorOptions = { whitelist: true, forbidUnknownValues: true };

/**
 * Turns tool arguments into an instance of `cls` (nested `@Type` classes become instances too)
 * and validates it. `undefined` counts as `{}` because MCP allows a call without `arguments`.
 * Properties the class does not declare are refused (or, with `unknownProperties: 'drop'`, removed)
 * before class-transformer sees them: it walks every key it is given.
 */
export async function validateInput<T extends object>(cls: new () => T, plain: unknown, unknownProperties: 'refuse' | 'drop' = 'refuse'): Promise<ValidationResult<T>> {
  let value: unknown = plain === undefined ? {} : plain;
  let unknown: ValidationIssue[] = [];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const schema = classToJsonSchema(cls);
    // Either way the copy checked below is without them; refusing, they are reported with the other issues.
    const screened = screenUnknown(schema, value, schema);
    value = screened.value;
    if (unknownProperties === 'refuse') unknown = screened.issues;
  }
  const result = await run(cls, value, INPUT_OPTIONS, 'arguments');
  if (unknown.length === 0) return result;
  return fail(result.ok ? unknown : [...result.issues, ...unknown]);
}

/**
 * Removes (from copies: the arguments are not ours to change) the properties that no `properties`
 * of a closed object schema declares, following $ref and items, and lists them as issues. The
 * caller bounded depth and size already.
 */
function screenUnknown(
  schema: JsonSchema,
  value: unknown,
  root: JsonSchema,
  path = '',
  issues: ValidationIssue[] = [],
): { value: unknown; issues: ValidationIssue[] } {
  if (value === null || typeof value !== 'object') return { value, issues };
  const ref = schema.$ref as string | undefined;
  if (ref !== undefined) schema = ref === '#' ? root : ((root.$defs as Record<string, JsonSchema> | undefined)?.[ref.slice(8)] ?? {});
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    if (!items) return { value, issues };
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = screenUnknown(items, value[i], root, joinPath(path, i, true), issues).value;
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return { value: copy ?? value, issues };
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return { value, issues };
  const closed = schema.additionalProperties === false;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (sub === undefined) {
      if (!closed) continue;
      issues.push({ path: joinPath(path, key), message: `property ${key} should not exist` });
      delete (copy ??= { ...record })[key];
      continue;
    }
    const inner = screenUnknown(sub, record[key], root, joinPath(path, key), issues).value;
    if (inner !== record[key]) (copy ??= { ...record })[key] = inner;
  }
  return { value: copy ?? value, issues };
}

/**
 * Validates a tool result (plain object or instance) against an output class. Works on a copy:
 * the returned value is a fresh instance without properties the class does not declare.
 */
export function validateOutput<T extends object>(cls: new () => T, value: unknown): Promise<ValidationResult<T>> {
  return run(cls, value, OUTPUT_OPTIONS, 'result');
}

async function run<T extends object>(
  cls: new () => T,
  plain: unknown,
  options: ValidatorOptions,
  what: string,
): Promise<ValidationResult<T>> {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return fail([{ path: '', message: `${what} must be an object, got ${describe(plain)}` }]);
  }
  // class-validator reports any instance of a rule-less class as an "unknown value",
  // so a class without properties (a tool without arguments) is checked here.
  if (!hasRules(cls)) {
    const extra = options.forbidNonWhitelisted ? Object.keys(plain) : [];
    if (extra.length > 0) return fail(extra.map((key) => ({ path: key, message: `property ${key} should not exist` })));
    return { ok: true, value: new cls() };
  }
  const instance = plainToInstance(cls, plain);
  const issues = flatten(await validate(instance, options));
  // class-validator accepts an absent property unless one of its rules rejects undefined
  // (a bare @ValidateNested or @Field does not); the schema says it is required, so check that too.
  const schema = classToJsonSchema(cls);
  for (const missing of missingRequired(schema, instance, schema)) {
    if (!issues.some((issue) => issue.path === missing.path)) issues.push(missing);
  }
  return issues.length > 0 ? fail(issues) : { ok: true, value: instance };
}

/** Whether class-validator has rules for the class (asked once per class: the lookup walks all metadata). */
const rulesOf = new WeakMap<Function, boolean>();
function hasRules(cls: Function): boolean {
  let has = rulesOf.get(cls);
  if (has === undefined) {
    has = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).length > 0;
    rulesOf.set(cls, has);
  }
  return has;
}

/** Issues for `required` properties that are undefined, following $ref / properties / items. */
function missingRequired(
  schema: JsonSchema,
  value: unknown,
  root: JsonSchema,
  path = '',
  seen = new Set<unknown>(),
  out: ValidationIssue[] = [],
): ValidationIssue[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return out;
  seen.add(value); // outputs built in code may be cyclic
  const ref = schema.$ref as string | undefined;
  if (ref !== undefined) schema = ref === '#' ? root : ((root.$defs as Record<string, JsonSchema>)[ref.slice(8)] ?? {});
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined;
    if (items) value.forEach((item, i) => missingRequired(items, item, root, joinPath(path, i, true), seen, out));
    return out;
  }
  const record = value as Record<string, unknown>;
  for (const name of (schema.required as string[] | undefined) ?? []) {
    if (record[name] === undefined) out.push({ path: joinPath(path, name), message: `${name} is required` });
  }
  for (const [name, sub] of Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {})) {
    missingRequired(sub, record[name], root, joinPath(path, name), seen, out);
  }
  return out;
}

function fail(issues: ValidationIssue[]): { ok: false; issues: ValidationIssue[] } {
  return { ok: false, issues };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Flattens class-validator's error tree: one issue per failed constraint, with a dotted/indexed path. */
function flatten(errors: ValidationError[], parent = '', parentIsArray = false, out: ValidationIssue[] = []) {
  for (const error of errors) {
    // "unknown value" errors carry no property: they belong to the parent itself.
    const path = error.property === undefined ? parent : joinPath(parent, error.property, parentIsArray);
    for (const message of Object.values(error.constraints ?? {})) out.push({ path, message });
    if (error.children?.length) flatten(error.children, path, Array.isArray(error.value), out);
  }
  return out;
}

/** Issues listed in one message at most: thousands of bad items must not make a message of megabytes. */
const MAX_LISTED_ISSUES = 50;

/** Readable multi-line message, e.g. "Invalid arguments:\n- limit: limit must not be less than 1". */
export function formatIssues(issues: ValidationIssue[], heading = 'Invalid arguments'): string {
  const lines = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `- ${issue.path ? `${issue.path}: ` : ''}${issue.message}`);
  if (issues.length > MAX_LISTED_ISSUES) lines.push(`- … and ${issues.length - MAX_LISTED_ISSUES} more`);
  return [`${heading}:`, ...lines].join('\n');
}
