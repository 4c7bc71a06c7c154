import 'reflect-metadata';
import { validate, type ValidationError, type ValidatorOptions } from 'class-validator';
import type { ValidationResult } from './class-validation';
import { compileJsonSchema } from './json-schema-validation';
import { classTransformer } from './class-transformer';
import { joinPath, type JsonSchema, type ValidationIssue } from './json-schema';
import { toElicitationSchema } from './to-elicitation-schema';
import { describe, isRecord } from './values';

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
    instance = classTransformer().plainToInstance(cls, plain);
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
