import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { joinPath, type JsonSchema, type ValidationIssue } from './json-schema';

export type JsonSchemaValidator = (value: unknown) => ValidationIssue[] | null;

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

// ajv has no built-in formats (those live in ajv-formats, not a dependency): `format` stays
// unchecked. With strict:false ajv would ignore unknown formats anyway, but warn on the console
// for each one; validateFormats:false skips them silently.
// ajv is loaded on first use: a server whose tools all take input classes never loads it, and
// loads some 30–40 ms sooner on 2 cores (stdio clients may give a server 1 s to answer).
const newAjv = (): Ajv2020 => {
  const { default: Ajv } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
  return new Ajv({ strict: false, allErrors: true, validateFormats: false });
};
let sharedAjv: Ajv2020 | undefined;

const cache = new WeakMap<JsonSchema, JsonSchemaValidator>();

/**
 * Compiles a raw JSON Schema (draft 2020-12) into a validator returning issues, or null when valid.
 * Throws if the schema itself is invalid. Validators are cached per schema object.
 */
export function compileJsonSchema(schema: JsonSchema): JsonSchemaValidator {
  let validator = cache.get(schema);
  if (!validator) {
    const validate = compile(schema);
    validator = (value) => (validate(value) ? null : (validate.errors ?? []).map((e) => toIssue(e, value)));
    cache.set(schema, validator);
  }
  return validator;
}

function compile(schema: JsonSchema): ValidateFunction {
  // Schemas declaring another draft (often draft-07 from generators) are read with 2020-12
  // semantics; ajv would otherwise refuse the unknown meta-schema.
  const target = typeof schema.$schema === 'string' && schema.$schema !== DRAFT_2020_12 ? withoutDialect(schema) : schema;
  try {
    return (sharedAjv ??= newAjv()).compile(target);
  } catch (err) {
    // Two different schemas with the same $id cannot live in one ajv instance: use a fresh one.
    if (!/already exists/.test(String(err))) throw err;
    return newAjv().compile(target);
  }
}

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/** Maps an ajv error to an issue whose path uses the same `a.b[0]` notation as class validation. */
function toIssue(error: ErrorObject, data: unknown): ValidationIssue {
  let path = '';
  let current: unknown = data;
  for (const raw of error.instancePath.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = joinPath(path, key, Array.isArray(current));
    current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  }
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const name = String(params.missingProperty);
    return { path: joinPath(path, name), message: `${name} is required` };
  }
  const extra = params.additionalProperty ?? params.unevaluatedProperty;
  if (extra !== undefined) {
    return { path: joinPath(path, String(extra)), message: `property ${String(extra)} should not exist` };
  }
  return { path, message: `${path || 'value'} ${error.message ?? 'is invalid'}` };
}
