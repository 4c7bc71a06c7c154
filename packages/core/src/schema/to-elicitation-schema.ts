import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { classShapes, classToJsonSchema } from './class-schema';
import { getFieldOptions } from './field';
import { deepFreeze, type JsonSchema } from './json-schema';
import { checkProperty } from './check-elicitation-schema';
import { convertProperty } from './elicitation-field';
import { ElicitationSchemaError, type ElicitationProblem } from './elicitation-schema-error';
import type { ElicitationSchema, PrimitiveSchema } from './elicitation-schema-types';

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
    const converted = dateProperty(cls, name) ?? typeConflict(rules.filter((m) => m.propertyName === name)) ?? convertProperty(source, getFieldOptions(cls, name)?.enumTitles);
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
