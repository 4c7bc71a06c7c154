import 'reflect-metadata';
import { getMetadataStorage, validate, type ValidationError, type ValidatorOptions } from 'class-validator';
import { classShapes, classToJsonSchema } from './class-schema';
import { acceptFast } from './fast-accept';
import { classTransformer } from './class-transformer';
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
export function validateInput<T extends object>(cls: new () => T, plain: unknown, unknownProperties: 'refuse' | 'drop' = 'refuse'): ValidationResult<T> | Promise<ValidationResult<T>> {
  let value: unknown = plain === undefined ? {} : plain;
  let unknown: readonly ValidationIssue[] = NO_ISSUES;
  const revived: Revived = { issues: [] };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const schema = classToJsonSchema(cls);
    // Either way the copy checked below is without them; refusing, they are reported with the other issues.
    const screened = screenUnknown(schema, value, schema);
    value = screened.value;
    if (unknownProperties === 'refuse') unknown = screened.issues;
    value = revive(cls, value, '', revived);
  }
  // Arguments the fast check accepts are answered at once; class-validator's verdict comes as a promise.
  const result = run(cls, value, INPUT_OPTIONS, 'arguments', revived);
  if (revived.issues.length === 0 && unknown.length === 0) return result;
  return result instanceof Promise ? result.then((r) => withOwnIssues(r, revived, unknown)) : withOwnIssues(result, revived, unknown);
}

const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([]);

/** class-validator's issues joined with those reviving and screening found. */
function withOwnIssues<T>(result: ValidationResult<T>, revived: Revived, unknown: readonly ValidationIssue[]): ValidationResult<T> {
  const own = [...revived.issues, ...unknown];
  return fail(result.ok ? own : [...result.issues, ...own]);
}

/** What reviving found: its issues, the paths they replace, and the arrays of dates among them. */
interface Revived {
  issues: ValidationIssue[];
  /** Paths whose other issues (class-validator's, "is required") say the same thing less clearly. */
  replaced?: Set<string>;
  /** Arrays with a bad date: class-validator's `@IsDate({ each: true })` reports them at the array. */
  dateArrays?: Set<string>;
}

/**
 * Turns JSON into what the class declares where class-transformer would not (from copies: the
 * arguments are not ours to change): ISO 8601 date-time strings become Dates, and a Set or Map
 * property (converted by its `@Type`) must be an array or an object. Follows nested classes.
 */
function revive(cls: Function, value: unknown, path: string, out: Revived): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const shapes = classShapes(cls);
  if (shapes.size === 0) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const [name, shape] of shapes) {
    const v = Object.hasOwn(record, name) ? record[name] : undefined;
    if (v === undefined || v === null) continue; // absent: "is required" or @IsOptional decide
    const at = joinPath(path, name);
    let next: unknown = v;
    if (shape.kind === 'date') {
      if (shape.each && Array.isArray(v)) {
        next = v.map((item, i) => {
          const date = toDate(item);
          if (date) return date;
          out.issues.push({ path: joinPath(at, i, true), message: `${name}[${i}] ${DATE_EXPECTED}` });
          (out.replaced ??= new Set()).add(joinPath(at, i, true));
          (out.dateArrays ??= new Set()).add(at);
          return item;
        });
      } else if (!shape.each) {
        const date = toDate(v);
        if (date) next = date;
        else {
          out.issues.push({ path: at, message: `${name} ${DATE_EXPECTED}` });
          (out.replaced ??= new Set()).add(at);
        }
      }
    } else if (shape.kind === 'set' || shape.kind === 'map') {
      const ok = shape.kind === 'set' ? Array.isArray(v) : typeof v === 'object' && !Array.isArray(v);
      if (!ok) {
        out.issues.push({ path: at, message: `${name} must be ${shape.kind === 'set' ? 'an array' : 'an object'}` });
        (out.replaced ??= new Set()).add(at);
        // Not handed to class-transformer, which would make a Set of a string's characters.
        next = undefined;
      }
    } else if (shape.each) {
      if (Array.isArray(v)) {
        const items = v.map((item, i) => revive(shape.cls, item, joinPath(at, i, true), out));
        if (items.some((item, i) => item !== v[i])) next = items;
      }
    } else {
      next = revive(shape.cls, v, at, out);
    }
    if (next !== v) {
      copy ??= { ...record };
      if (next === undefined) delete copy[name];
      else copy[name] = next;
    }
  }
  return copy ?? value;
}

const DATE_EXPECTED = 'must be an ISO 8601 date-time string with a time zone, such as 2024-05-01T09:30:00Z';

// RFC 3339's date-time: the ISO 8601 profile that JSON Schema's "date-time" format names.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** The Date a date-time string names, or undefined (wrong type, wrong form, or no such day or time). */
function toDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHour = m[8] === undefined ? 0 : Number(m[8]);
  const offsetMinute = m[9] === undefined ? 0 : Number(m[9]);
  // Date would roll 2024-02-30 over to March 1 instead of refusing it.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) return undefined;
  const date = new Date(value.toUpperCase());
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Removes (from copies: the arguments are not ours to change) the properties that no `properties`
 * of a closed object schema declares, following $ref and items, and lists them as issues. The
 * caller bounded depth and size already.
 */
function screenUnknown(schema: JsonSchema, value: unknown, root: JsonSchema, path = '', issues: ValidationIssue[] = []): { value: unknown; issues: ValidationIssue[] } {
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
export function validateOutput<T extends object>(cls: new () => T, value: unknown): ValidationResult<T> | Promise<ValidationResult<T>> {
  return run(cls, value, OUTPUT_OPTIONS, 'result');
}

function run<T extends object>(cls: new () => T, plain: unknown, options: ValidatorOptions, what: string, revived?: Revived): ValidationResult<T> | Promise<ValidationResult<T>> {
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
  // The common case, for arguments: a flat class given primitives whose every rule holds.
  if (options === INPUT_OPTIONS && !revived?.issues.length) {
    const accepted = acceptFast(cls, plain as Record<string, unknown>, classToJsonSchema(cls));
    if (accepted) return { ok: true, value: accepted };
  }
  return runClassValidator(cls, plain, options, revived);
}

/** The full check: class-transformer makes the instance, class-validator judges it (asynchronously). */
async function runClassValidator<T extends object>(cls: new () => T, plain: object, options: ValidatorOptions, revived?: Revived): Promise<ValidationResult<T>> {
  const instance = classTransformer().plainToInstance(cls, plain);
  const found = flatten(await validate(instance, options));
  // class-validator accepts an absent property unless one of its rules rejects undefined
  // (a bare @ValidateNested or @Field does not), and when a rule does reject it, it says so in
  // the rule's words ("must not be greater than 5"). A missing property gets exactly "is required".
  const schema = classToJsonSchema(cls);
  const replaced = new Set(revived?.replaced);
  const missing = missingRequired(schema, instance, schema).filter((issue) => !replaced.has(issue.path));
  for (const issue of missing) replaced.add(issue.path);
  // The path itself or one of its ancestors (`a.b[2]` → `a.b`, `a`): cost by depth, not by issue count.
  const covered = (path: string) => {
    for (let p = path; p !== ''; p = parentPath(p)) if (replaced.has(p)) return true;
    return false;
  };
  const issues: ValidationIssue[] = [...missing];
  for (const { rule, ...issue } of found) {
    if (covered(issue.path)) continue;
    if (rule === 'isDate' && revived?.dateArrays?.has(issue.path)) continue;
    issues.push(issue);
  }
  return issues.length > 0 || (revived?.issues.length ?? 0) > 0 ? fail(issues) : { ok: true, value: instance };
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
function missingRequired(schema: JsonSchema, value: unknown, root: JsonSchema, path = '', seen = new Set<unknown>(), out: ValidationIssue[] = []): ValidationIssue[] {
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

/** `a.b[2]` → `a.b`, `a.b` → `a`, `a` → ''. */
function parentPath(path: string): string {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
  return cut < 0 ? '' : path.slice(0, cut);
}

function fail(issues: ValidationIssue[]): { ok: false; issues: ValidationIssue[] } {
  return { ok: false, issues };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Flattens class-validator's error tree: one issue per failed constraint (named by `rule`), with a dotted/indexed path. */
function flatten(errors: ValidationError[], parent = '', parentIsArray = false, out: (ValidationIssue & { rule: string })[] = []) {
  for (const error of errors) {
    // "unknown value" errors carry no property: they belong to the parent itself.
    const path = error.property === undefined ? parent : joinPath(parent, error.property, parentIsArray);
    for (const [rule, message] of Object.entries(error.constraints ?? {})) out.push({ path, message, rule });
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
