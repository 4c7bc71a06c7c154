import type { JsonSchema } from './json-schema';
import { ELICITATION_FORMATS } from './elicitation-schema-types';
import { describe, isRecord, list, show } from './values';

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
export function checkProperty(p: unknown): string[] {
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
      out.push('$ref' in p ? 'is a reference ($ref); an elicitation form has flat primitive fields only' : 'has no type (one of string, number, integer, boolean, array)');
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
    if (p.format !== undefined && !ELICITATION_FORMATS.has(p.format)) {
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
