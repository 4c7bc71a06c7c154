import type { JsonSchema } from './json-schema';
import {
  ELICITATION_FORMATS,
  type ElicitationMultiSelectSchema,
  type ElicitationNumberSchema,
  type ElicitationOption,
  type ElicitationStringSchema,
  type Labels,
  type PrimitiveSchema,
} from './elicitation-schema-types';
import { isRecord, list } from './values';

// One property of a class schema → one field of an elicitation form.

const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const ARRAY_KEYWORDS = ['items', 'minItems', 'maxItems', 'uniqueItems'];
const ENUM_HINT = '@IsIn([...], { each: true }) or @IsEnum(E, { each: true })';

/** Converts one property of a class schema; a string return is the reason it cannot be a field. */
export function convertProperty(s: JsonSchema, enumTitles: Record<string, string> | undefined): PrimitiveSchema | string {
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
  if (ELICITATION_FORMATS.has(s.format)) field.format = s.format;
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
    if (
      options &&
      !sameSet(
        values as string[],
        options.map((o) => o.const),
      )
    ) {
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
const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((v) => b.includes(v));
