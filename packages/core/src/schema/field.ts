import 'reflect-metadata';
import { Allow } from 'class-validator';
import { isStandardDecoratorContext, standardDecoratorError } from '../decorator-form';

/** Schema annotations for one input/output property. */
export interface FieldOptions {
  description?: string;
  title?: string;
  default?: unknown;
  examples?: unknown[];
  /** Overrides a format derived from validators (e.g. IsEmail → email). */
  format?: string;
  deprecated?: boolean;
  /**
   * Display titles for the allowed values of an enum property (`@IsIn`, `@IsEnum`, also with
   * `each: true`), keyed by value. Used by elicitation forms: a single select becomes
   * `oneOf: [{ const, title }]`, a multi-select `items: { anyOf: [{ const, title }] }`;
   * values without an entry are shown as themselves. Tool input schemas are not affected.
   */
  enumTitles?: Record<string, string>;
  /**
   * Mirrors this tool argument into the HTTP header `Mcp-Param-{header}` (2026-07-28 `x-mcp-header`),
   * so load balancers and gateways can route on it without reading the body. An HTTP token
   * (letters, digits, `-` and the like), unique within the tool ignoring case, on a string,
   * integer or boolean property that is a direct property of the input class or of a class nested
   * in it as a single value (not in an array). Checked when the tool is defined. Header values
   * are visible to every intermediary: never mark secrets or personal data.
   */
  header?: string;
  /** Extra JSON Schema keywords, merged last (they win over everything derived). */
  schema?: Record<string, unknown>;
}

const FIELD_KEY = Symbol('mcpx:field');

/**
 * Documents a property for the generated JSON Schema. Also applies class-validator's
 * `@Allow()` so a property carrying only `@Field` is whitelisted (not reported as unknown).
 */
export function Field(options: FieldOptions = {}): PropertyDecorator {
  const allow = Allow();
  return (target, propertyKey) => {
    if (isStandardDecoratorContext(propertyKey)) throw standardDecoratorError('Field', propertyKey);
    Reflect.defineMetadata(FIELD_KEY, { ...options }, target, propertyKey);
    allow(target, propertyKey);
  };
}

/** Options from `@Field` on `target` or any parent class (metadata lookup walks the prototype chain). */
export function getFieldOptions(target: Function, property: string): FieldOptions | undefined {
  return Reflect.getMetadata(FIELD_KEY, target.prototype, property) as FieldOptions | undefined;
}
