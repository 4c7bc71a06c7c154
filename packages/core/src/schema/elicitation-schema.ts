import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, type ValidationError, type ValidatorOptions } from 'class-validator';
import { classShapes, classToJsonSchema } from './class-schema';
import type { ValidationResult } from './class-validation';
import { getFieldOptions } from './field';
import { compileJsonSchema } from './json-schema-validation';
import { deepFreeze, joinPath, type JsonSchema, type ValidationIssue } from './json-schema';

// ---- the restricted schema of form-mode elicitation (MCP 2025-11-25, SEP-1034 / SEP-1330) ----

/** The string formats a form field may declare. */
export type ElicitationFormat = 'email' | 'uri' | 'date' | 'date-time';

/** One choice of an enum with a display title (`oneOf` / `items.anyOf` entries). */
export type ElicitationOption = { const: string; title: string };

type Labels = { title?: string; description?: string };

export type ElicitationStringSchema = Labels & {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  format?: ElicitationFormat;
  default?: string;
};

export type ElicitationNumberSchema = Labels & {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
};

export type ElicitationBooleanSchema = Labels & { type: 'boolean'; default?: boolean };

/** Single select: plain `enum`, legacy `enum` + `enumNames`, or titled `oneOf`. */
export type ElicitationSingleSelectSchema = Labels & { type: 'string'; default?: string } & (
    | { enum: string[]; enumNames?: string[] }
    | { oneOf: ElicitationOption[] }
  );

/** Multi-select: an array of strings chosen from `items.enum` or titled `items.anyOf`. */
export type ElicitationMultiSelectSchema = Labels & {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] } | { anyOf: ElicitationOption[] };
  default?: string[];
};

/** A property of an elicitation form: one of the primitive shapes the protocol allows. */
export type PrimitiveSchema =
  | ElicitationStringSchema
  | ElicitationNumberSchema
  | ElicitationBooleanSchema
  | ElicitationSingleSelectSchema
  | ElicitationMultiSelectSchema;

/** `requestedSchema` of an `elicitation/create` request in form mode: a flat object. */
export type ElicitationSchema = {
  type: 'object';
  properties: Record<string, PrimitiveSchema>;
  required?: string[];
};

export interface ElicitationProblem {
  property: string;
  reason: string;
}

/** A class whose properties cannot all be shown as fields of an elicitation form. */
export class ElicitationSchemaError extends Error {
  constructor(
    readonly className: string,
    readonly problems: ElicitationProblem[],
  ) {
    const lines = problems.map((p) => `- ${p.property}: ${p.reason}`);
    super([`Class ${className} cannot be used as an elicitation form:`, ...lines].join('\n'));
    this.name = 'ElicitationSchemaError';
  }
}

const FORMATS: ReadonlySet<unknown> = new Set(['email', 'uri', 'date', 'date-time']);

const cache = new WeakMap<Function, ElicitationSchema>();

/**
 * The form-mode `requestedSchema` for a class, derived from its class-validator rules and
 * `@Field` options (the same source as `classToJsonSchema`), reduced to what the restricted
 * elicitation schema allows:
 *
 * - string: title, description, minLength, maxLength, format (email, uri, date, date-time), default
 * - number / integer: title, description, minimum, maximum, default
 * - boolean: title, description, default
 * - single select (string `enum` from `@IsIn` / `@IsEnum`): plain `enum`, `oneOf: [{const, title}]`
 *   with `@Field({ enumTitles })`, or legacy `enumNames` given through `@Field({ schema })`
 * - multi-select (the same rules with `each: true`): `items: {type: 'string', enum}` or
 *   `items: {anyOf: [{const, title}]}`, plus minItems / maxItems and a default array
 *
 * Rules the form cannot carry but that still hold on the server (validateElicitedContent runs
 * them) are left out of the form or loosened: `pattern`, other formats (uuid, ...), `multipleOf`,
 * `uniqueItems`, excluded values; an exclusive bound becomes the inclusive one (exact for integers).
 * A property that cannot be a form field at all (nested object, array of free values, numeric
 * enum, no primitive type, rules of different types) makes this throw an ElicitationSchemaError
 * naming the class and every such property. The result is cached per class and deep-frozen.
 */
export function toElicitationSchema(cls: Function): ElicitationSchema {
  let schema = cache.get(cls);
  if (!schema) {
    schema = deepFreeze(build(cls));
    cache.set(cls, schema);
  }
  return schema;
}

function build(cls: Function): ElicitationSchema {
  const json = classToJsonSchema(cls);
  const properties: Record<string, PrimitiveSchema> = {};
  const problems: ElicitationProblem[] = [];
  const rules = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  for (const [name, source] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>)) {
    const converted =
      dateProperty(cls, name) ?? typeConflict(rules.filter((m) => m.propertyName === name)) ?? convertProperty(source, getFieldOptions(cls, name)?.enumTitles);
    // The derived field is checked like a hand-written one (defaults, bounds, option lists).
    const reasons = typeof converted === 'string' ? [converted] : checkProperty(converted);
    if (reasons.length > 0) problems.push(...reasons.map((reason) => ({ property: name, reason })));
    else properties[name] = converted as PrimitiveSchema;
  }
  if (problems.length > 0) throw new ElicitationSchemaError(cls.name || '(anonymous)', problems);
  const required = (json.required as string[] | undefined) ?? [];
  // structuredClone detaches the result from the (frozen) class schema before it is frozen itself.
  return structuredClone({ type: 'object', properties, ...(required.length > 0 ? { required } : {}) });
}

// ---- class schema property → form field ----

/**
 * A Date property lists as a date-time string, but a form answer is checked as it arrives
 * (strings), not revived into Dates as tool arguments are: it would never pass.
 */
function dateProperty(cls: Function, name: string): string | undefined {
  if (classShapes(cls).get(name)?.kind !== 'date') return undefined;
  return 'is a Date, which a form answer cannot be (it arrives as a string); make it a string with @IsDateString() (format date-time) and convert it with new Date(...)';
}

type RuleMetadata = { name?: string; each?: boolean };

// The JSON type each class-validator rule demands of a value (class-validator checks typeof first).
const RULE_TYPES: Record<string, string> = {
  isString: 'string',
  minLength: 'string',
  maxLength: 'string',
  isLength: 'string',
  matches: 'string',
  contains: 'string',
  isEmail: 'string',
  isUrl: 'string',
  isUuid: 'string',
  isFqdn: 'string',
  isDateString: 'string',
  isIso8601: 'string',
  isRFC3339: 'string',
  isIp: 'string',
  isNumber: 'number',
  isInt: 'number',
  min: 'number',
  max: 'number',
  isPositive: 'number',
  isNegative: 'number',
  isDivisibleBy: 'number',
  isBoolean: 'boolean',
  isArray: 'array',
  arrayMinSize: 'array',
  arrayMaxSize: 'array',
  arrayNotEmpty: 'array',
  arrayUnique: 'array',
  isObject: 'object',
  isNotEmptyObject: 'object',
};

/**
 * Rules of one property that demand different types (`@IsNumber() @Matches(...)`): no value
 * passes them, and the class schema keeps only the first type, so it is caught here.
 */
function typeConflict(rules: RuleMetadata[]): string | undefined {
  for (const each of [false, true]) {
    const byType = new Map<string, string[]>();
    for (const rule of rules) {
      const type = rule.name === undefined ? undefined : RULE_TYPES[rule.name];
      if (type === undefined || !!rule.each !== each) continue;
      byType.set(type, [...(byType.get(type) ?? []), rule.name!]);
    }
    if (byType.size > 1) {
      const parts = [...byType].map(([type, names]) => `${[...new Set(names)].join(', ')} (${type})`);
      return `has rules for different types${each ? ' on its elements' : ''}: ${parts.join(' vs ')}; no value can pass them all`;
    }
  }
  return undefined;
}

const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const ARRAY_KEYWORDS = ['items', 'minItems', 'maxItems', 'uniqueItems'];
const ENUM_HINT = '@IsIn([...], { each: true }) or @IsEnum(E, { each: true })';

/** Converts one property of a class schema; a string return is the reason it cannot be a field. */
function convertProperty(s: JsonSchema, enumTitles: Record<string, string> | undefined): PrimitiveSchema | string {
  if ('$ref' in s || s.type === 'object' || 'properties' in s) {
    return `is a nested object${refName(s)}; an elicitation form has flat primitive fields only (string, number, integer, boolean, enum, multi-select), so ask for its fields as separate properties`;
  }
  const type = s.type;
  if (Array.isArray(type)) return `allows several types (${type.join(', ')}); a form field has exactly one`;
  if (type === undefined) {
    if ('enum' in s || 'const' in s) {
      const values = 'enum' in s ? (s.enum as unknown[]) : [s.const];
      return values.length === 0 ? 'allows no value at all (empty @IsIn list?)' : notStrings(values);
    }
    return 'has no primitive type; give it a rule such as @IsString(), @IsNumber(), @IsInt() or @IsBoolean() (dates: @IsDateString())';
  }
  if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean' && type !== 'array') {
    return `has type ${JSON.stringify(type)}, which an elicitation form cannot show`;
  }
  const foreign = foreignKeywords(s, type);
  if (foreign.length > 0) {
    return `is a ${type} but also has ${foreign.join(', ')}, which belong to another type (conflicting rules?)`;
  }
  if (enumTitles !== undefined && type !== 'string' && type !== 'array') {
    return `has enumTitles but is a ${type}; enumTitles is for string choices (@IsIn / @IsEnum)`;
  }
  switch (type) {
    case 'string':
      return stringField(s, enumTitles);
    case 'boolean':
      // A fixed value (@Equals(true)) only narrows the choice: the server still checks it.
      return { type: 'boolean', ...labels(s), ...pick(s, ['default']) };
    case 'array':
      return multiSelectField(s, enumTitles);
    default:
      return numberField(s, type);
  }
}

function stringField(s: JsonSchema, enumTitles: Record<string, string> | undefined): PrimitiveSchema | string {
  const values = 'enum' in s ? (s.enum as unknown[]) : 'const' in s ? [s.const] : undefined;
  if (values !== undefined || 'oneOf' in s) {
    const choices = resolveChoices(values, s, 'oneOf', enumTitles);
    if (typeof choices === 'string') return choices;
    const head = { type: 'string' as const, ...labels(s) };
    if ('options' in choices) return { ...head, oneOf: choices.options, ...pick(s, ['default']) };
    return { ...head, enum: choices.values, ...pick(s, ['enumNames', 'default']) };
  }
  if (enumTitles !== undefined) return 'has enumTitles but no list of allowed values (@IsIn or @IsEnum)';
  if ('enumNames' in s) return 'has enumNames but no list of allowed values (@IsIn or @IsEnum)';
  const field: JsonSchema = { type: 'string', ...labels(s), ...pick(s, ['minLength', 'maxLength']) };
  // Other formats (uuid, hostname, ...) are not offered to clients; the server-side rule stays.
  if (FORMATS.has(s.format)) field.format = s.format;
  return { ...field, ...pick(s, ['default']) } as ElicitationStringSchema;
}

function numberField(s: JsonSchema, type: 'number' | 'integer'): PrimitiveSchema | string {
  if ('enum' in s || 'oneOf' in s) {
    return `allows only listed ${type === 'integer' ? 'integers' : 'numbers'}; elicitation choices are strings, so use string values (@IsIn(['1', '2'])) or a range (@Min / @Max)`;
  }
  const integer = type === 'integer';
  let min = num(s.minimum);
  let max = num(s.maximum);
  const exclusiveMin = num(s.exclusiveMinimum);
  const exclusiveMax = num(s.exclusiveMaximum);
  // Exact for integers (> 0 is >= 1); for numbers the inclusive bound is the closest the form can say.
  if (exclusiveMin !== undefined) min = maxOf(min, integer ? Math.floor(exclusiveMin) + 1 : exclusiveMin);
  if (exclusiveMax !== undefined) max = minOf(max, integer ? Math.ceil(exclusiveMax) - 1 : exclusiveMax);
  if ('const' in s) {
    const c = s.const;
    if (typeof c !== 'number') return `must equal ${JSON.stringify(c)}, which is not a ${type}`;
    min = maxOf(min, c);
    max = minOf(max, c);
  }
  return {
    type,
    ...labels(s),
    ...(min !== undefined ? { minimum: min } : {}),
    ...(max !== undefined ? { maximum: max } : {}),
    ...pick(s, ['default']),
  } as ElicitationNumberSchema;
}

function multiSelectField(s: JsonSchema, enumTitles: Record<string, string> | undefined): PrimitiveSchema | string {
  const items = s.items;
  if (!isRecord(items)) return `is an array without a rule for its elements; a multi-select needs its choices: ${ENUM_HINT}`;
  if ('$ref' in items || items.type === 'object' || 'properties' in items) {
    return `is an array of objects${refName(items)}; elicitation arrays are multi-selects of string choices only`;
  }
  if ('enumNames' in s || 'enumNames' in items) return 'has enumNames, which only single selects may carry; use enumTitles';
  const values = 'enum' in items ? (items.enum as unknown[]) : 'const' in items ? [items.const] : undefined;
  if (values === undefined && !('anyOf' in items) && !('oneOf' in items)) {
    const what = typeof items.type === 'string' ? `${items.type}s` : 'values';
    return `is an array of free ${what}; elicitation arrays are multi-selects, so list the choices with ${ENUM_HINT}`;
  }
  if (items.type !== undefined && items.type !== 'string') {
    return `is an array of ${JSON.stringify(items.type)} values; multi-select choices are strings only`;
  }
  const choices = resolveChoices(values, items, 'oneOf' in items ? 'oneOf' : 'anyOf', enumTitles);
  if (typeof choices === 'string') return choices;
  const field = {
    type: 'array' as const,
    ...labels(s),
    ...pick(s, ['minItems', 'maxItems']),
    items: 'options' in choices ? { anyOf: choices.options } : { type: 'string' as const, enum: choices.values },
    ...pick(s, ['default']),
  };
  return field as ElicitationMultiSelectSchema;
}

/**
 * The choices of a select: the allowed values (enum / const) and/or `{const, title}` options
 * written in the schema, with enumTitles turning them into titled options.
 */
function resolveChoices(
  values: unknown[] | undefined,
  s: JsonSchema,
  optionsKey: 'oneOf' | 'anyOf',
  enumTitles: Record<string, string> | undefined,
): { values: string[] } | { options: ElicitationOption[] } | string {
  let options: ElicitationOption[] | undefined;
  if (optionsKey in s) {
    options = asOptions(s[optionsKey]);
    if (!options) return `has a ${optionsKey} that is not a list of { const, title } string choices`;
  }
  if (values !== undefined) {
    if (values.length === 0) return 'allows no value at all (empty @IsIn list?)';
    if (!values.every((v) => typeof v === 'string')) return notStrings(values);
    if (options && !sameSet(values as string[], options.map((o) => o.const))) {
      return `lists ${optionsKey} choices that differ from its allowed values (${list(values)})`;
    }
  }
  const allowed = (values as string[] | undefined) ?? options!.map((o) => o.const);
  if (enumTitles === undefined) return options ? { options } : { values: [...allowed] };
  if ('enumNames' in s) return 'has both enumTitles and enumNames; keep enumTitles';
  const unknown = Object.keys(enumTitles).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) return `has enumTitles for values it does not allow: ${list(unknown)} (allowed: ${list(allowed)})`;
  return {
    options: allowed.map((v) => ({ const: v, title: enumTitles[v] ?? options?.find((o) => o.const === v)?.title ?? v })),
  };
}

function asOptions(value: unknown): ElicitationOption[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const options: ElicitationOption[] = [];
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.const !== 'string') return undefined;
    options.push({ const: entry.const, title: typeof entry.title === 'string' ? entry.title : entry.const });
  }
  return options;
}

/** Keywords of `s` that apply to a different JSON type than `type` (e.g. pattern on a number). */
function foreignKeywords(s: JsonSchema, type: string): string[] {
  const families: [string, string[]][] = [
    ['string', STRING_KEYWORDS],
    ['number', NUMBER_KEYWORDS],
    ['array', ARRAY_KEYWORDS],
  ];
  const own = type === 'integer' ? 'number' : type;
  return families.filter(([family]) => family !== own).flatMap(([, keys]) => keys.filter((k) => k in s));
}

function labels(s: JsonSchema): Labels {
  return pick(s, ['title', 'description']) as Labels;
}

function pick(s: JsonSchema, keys: string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const key of keys) if (s[key] !== undefined) out[key] = s[key];
  return out;
}

function refName(s: JsonSchema): string {
  const ref = s.$ref;
  if (typeof ref !== 'string') return '';
  return ref === '#' ? ' (the class itself)' : ` (${ref.replace('#/$defs/', '')})`;
}

function notStrings(values: unknown[]): string {
  return `allows values that are not all strings (${list(values)}); elicitation choices are strings only`;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const maxOf = (a: number | undefined, b: number) => (a === undefined ? b : Math.max(a, b));
const minOf = (a: number | undefined, b: number) => (a === undefined ? b : Math.min(a, b));
const list = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');
const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((v) => b.includes(v));

// ---- checking a hand-written requested schema ----

/**
 * Problems in a raw `requestedSchema` (empty when fine): what the official client rejects
 * (a wrong shape, a property that is none of the primitive shapes, a format outside
 * email/uri/date/date-time, non-string choices, defaults of the wrong type) and what makes a form
 * unusable (a default that is not a choice or out of bounds, minimum above maximum, enumNames of
 * another length than enum, `required` naming a missing property, enum and oneOf together).
 * Keywords the protocol does not know are ignored, as clients ignore them.
 */
export function checkElicitationSchema(schema: unknown): string[] {
  if (!isRecord(schema)) return [`the schema must be an object, got ${describe(schema)}`];
  const problems: string[] = [];
  if (schema.type !== 'object') problems.push(`type must be "object" (got ${show(schema.type)})`);
  const properties = schema.properties;
  if (!isRecord(properties)) {
    problems.push(`properties must be an object of field schemas (got ${describe(properties)})`);
  } else {
    for (const [name, property] of Object.entries(properties)) {
      for (const problem of checkProperty(property)) problems.push(`properties.${name}: ${problem}`);
    }
  }
  const required = schema.required;
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      problems.push('required must be an array of property names');
    } else if (isRecord(properties)) {
      for (const name of required) if (!(name in properties)) problems.push(`required lists "${name}", which is not in properties`);
    }
  }
  return problems;
}

/** Problems of one field schema, phrased to follow a property name. */
function checkProperty(p: unknown): string[] {
  if (!isRecord(p)) return [`must be a field schema object (got ${describe(p)})`];
  const out: string[] = [];
  for (const key of ['title', 'description']) {
    if (p[key] !== undefined && typeof p[key] !== 'string') out.push(`${key} must be a string`);
  }
  switch (p.type) {
    case 'string':
      checkStringField(p, out);
      break;
    case 'number':
    case 'integer':
      checkNumberField(p, p.type === 'integer', out);
      break;
    case 'boolean':
      if (p.default !== undefined && typeof p.default !== 'boolean') out.push('default must be a boolean');
      break;
    case 'array':
      checkMultiSelect(p, out);
      break;
    case 'object':
      out.push('is a nested object; an elicitation form has flat primitive fields only');
      break;
    case undefined:
      out.push(
        '$ref' in p
          ? 'is a reference ($ref); an elicitation form has flat primitive fields only'
          : 'has no type (one of string, number, integer, boolean, array)',
      );
      break;
    default:
      out.push(`type must be one of string, number, integer, boolean, array (got ${show(p.type)})`);
  }
  return out;
}

function checkStringField(p: JsonSchema, out: string[]): void {
  const hasEnum = 'enum' in p;
  const hasOneOf = 'oneOf' in p;
  let choices: string[] | undefined;
  if (hasEnum && hasOneOf) out.push('has both enum and oneOf; a single select uses one of them');
  if (hasOneOf) choices = checkOptions(p.oneOf, 'oneOf', out);
  else if (hasEnum) choices = checkStringList(p.enum, 'enum', out);
  if ('enumNames' in p) {
    if (!hasEnum) out.push('enumNames needs an enum to name');
    const names = checkStringList(p.enumNames, 'enumNames', out, false);
    if (names && Array.isArray(p.enum) && names.length !== p.enum.length) {
      out.push(`enumNames has ${names.length} entries but enum has ${p.enum.length}`);
    }
  }
  const plain = !hasEnum && !hasOneOf;
  let minLength: number | undefined;
  let maxLength: number | undefined;
  if (plain) {
    minLength = checkCount(p, 'minLength', out);
    maxLength = checkCount(p, 'maxLength', out);
    if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
      out.push(`minLength ${minLength} is greater than maxLength ${maxLength}`);
    }
    if (p.format !== undefined && !FORMATS.has(p.format)) {
      out.push(`format must be one of email, uri, date, date-time (got ${show(p.format)})`);
    }
  }
  const d = p.default;
  if (d === undefined) return;
  if (typeof d !== 'string') out.push('default must be a string');
  else if (choices && !choices.includes(d)) out.push(`default ${show(d)} is not one of the choices (${list(choices)})`);
  else if (minLength !== undefined && d.length < minLength) out.push(`default ${show(d)} is shorter than minLength ${minLength}`);
  else if (maxLength !== undefined && d.length > maxLength) out.push(`default ${show(d)} is longer than maxLength ${maxLength}`);
}

function checkNumberField(p: JsonSchema, integer: boolean, out: string[]): void {
  if ('enum' in p || 'oneOf' in p) out.push('choices (enum / oneOf) are only allowed on strings; clients ignore them on numbers');
  const min = checkNumber(p, 'minimum', out);
  const max = checkNumber(p, 'maximum', out);
  if (min !== undefined && max !== undefined && min > max) out.push(`minimum ${min} is greater than maximum ${max}`);
  const d = p.default;
  if (d === undefined) return;
  if (typeof d !== 'number' || !Number.isFinite(d)) out.push('default must be a number');
  else if (integer && !Number.isInteger(d)) out.push(`default ${d} is not an integer`);
  else if (min !== undefined && d < min) out.push(`default ${d} is less than minimum ${min}`);
  else if (max !== undefined && d > max) out.push(`default ${d} is greater than maximum ${max}`);
}

function checkMultiSelect(p: JsonSchema, out: string[]): void {
  const items = p.items;
  let choices: string[] | undefined;
  if (!isRecord(items)) {
    out.push('items must be an object listing the choices (items.enum or items.anyOf)');
  } else if ('anyOf' in items) {
    if ('enum' in items) out.push('items has both enum and anyOf; a multi-select uses one of them');
    choices = checkOptions(items.anyOf, 'items.anyOf', out);
  } else if ('enum' in items) {
    if (items.type !== 'string') out.push(`items.type must be "string" next to items.enum (got ${show(items.type)})`);
    choices = checkStringList(items.enum, 'items.enum', out);
  } else {
    out.push('items must list the choices with enum (type "string") or anyOf [{const, title}]; arrays of free values are not allowed');
  }
  const minItems = checkCount(p, 'minItems', out);
  const maxItems = checkCount(p, 'maxItems', out);
  if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) {
    out.push(`minItems ${minItems} is greater than maxItems ${maxItems}`);
  }
  if (minItems !== undefined && choices && minItems > choices.length) {
    out.push(`minItems ${minItems} is more than the ${choices.length} choices`);
  }
  const d = p.default;
  if (d === undefined) return;
  if (!Array.isArray(d) || !d.every((v) => typeof v === 'string')) {
    out.push('default must be an array of strings');
    return;
  }
  const foreign = choices ? d.filter((v) => !choices.includes(v)) : [];
  if (foreign.length > 0) out.push(`default has values that are not choices: ${list(foreign)}`);
  if (minItems !== undefined && d.length < minItems) out.push(`default has fewer than minItems (${minItems}) values`);
  if (maxItems !== undefined && d.length > maxItems) out.push(`default has more than maxItems (${maxItems}) values`);
}

/** A non-empty list of distinct strings (names may repeat); undefined (and a problem) otherwise. */
function checkStringList(value: unknown, key: string, out: string[], distinct = true): string[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    out.push(`${key} must be an array of strings`);
    return undefined;
  }
  if (value.length === 0) out.push(`${key} is empty`);
  if (distinct && new Set(value).size !== value.length) out.push(`${key} has duplicate values`);
  return value;
}

/** A non-empty list of `{const, title}` string options; returns the consts. */
function checkOptions(value: unknown, key: string, out: string[]): string[] | undefined {
  if (!Array.isArray(value)) {
    out.push(`${key} must be an array of { const, title } options`);
    return undefined;
  }
  if (value.length === 0) out.push(`${key} is empty`);
  const consts: string[] = [];
  value.forEach((entry, i) => {
    if (!isRecord(entry) || typeof entry.const !== 'string' || typeof entry.title !== 'string') {
      out.push(`${key}[${i}] must be { const: string, title: string }`);
    } else consts.push(entry.const);
  });
  if (new Set(consts).size !== consts.length) out.push(`${key} has duplicate const values`);
  return consts.length === value.length ? consts : undefined;
}

/** A non-negative integer keyword (minLength, maxItems, ...), if present. */
function checkCount(p: JsonSchema, key: string, out: string[]): number | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    out.push(`${key} must be a non-negative integer (got ${show(v)})`);
    return undefined;
  }
  return v;
}

function checkNumber(p: JsonSchema, key: string, out: string[]): number | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    out.push(`${key} must be a number (got ${show(v)})`);
    return undefined;
  }
  return v;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));

// ---- the answer ----

// Properties the form did not ask for are dropped from the instance, not reported.
const CONTENT_OPTIONS: ValidatorOptions = { whitelist: true, forbidUnknownValues: true };

/**
 * Turns the `content` of an accepted form answer into an instance of `cls` (class-transformer)
 * and validates it with the class's class-validator rules, which include those the form could
 * not carry (pattern, uuid, ...). It is also checked against the form's own schema
 * (`toElicitationSchema(cls)`): required fields and keywords given only through `@Field`.
 * Optional fields may be left out; `undefined` content counts as `{}`. Throws an
 * ElicitationSchemaError if the class cannot be a form at all.
 */
export async function validateElicitedContent<T extends object>(cls: new () => T, content: unknown): Promise<ValidationResult<T>> {
  const schema = toElicitationSchema(cls);
  const plain = content === undefined ? {} : content;
  if (!isRecord(plain)) return { ok: false, issues: [{ path: '', message: `content must be an object, got ${describe(plain)}` }] };

  const issues: ValidationIssue[] = [];
  let instance: T;
  if (Object.keys(schema.properties).length === 0) {
    // class-validator reports any instance of a rule-less class as an unknown value.
    instance = new cls();
  } else {
    instance = plainToInstance(cls, plain);
    collect(await validate(instance, CONTENT_OPTIONS), '', issues);
  }
  // One report per field: the schema check only adds fields the class rules found no fault with.
  const reported = new Set(issues.map((issue) => fieldOf(issue.path)));
  for (const issue of compileJsonSchema(schema as JsonSchema)(instance) ?? []) {
    if (!reported.has(fieldOf(issue.path))) issues.push(issue);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: instance };
}

function collect(errors: ValidationError[], parent: string, out: ValidationIssue[]): void {
  for (const error of errors) {
    const path = error.property === undefined ? parent : joinPath(parent, error.property);
    for (const message of Object.values(error.constraints ?? {})) out.push({ path, message });
    if (error.children?.length) collect(error.children, path, out);
  }
}

/** The top-level property an issue path is about (`tags[1]` → `tags`). */
const fieldOf = (path: string) => path.split(/[.[]/)[0];
