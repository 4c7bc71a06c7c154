import type { TransformationType as TransformationTypes } from 'class-transformer';
import type { MetadataStorage as TransformMetadata } from 'class-transformer/types/MetadataStorage';
import { ValidationTypes, getMetadataStorage, type ValidationArguments } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import { classShapes } from './class-schema';
import type { JsonSchema } from './json-schema';

/**
 * The common case of tool arguments, accepted without class-transformer's and class-validator's
 * general machinery: a flat class (no nested classes, dates, sets or maps, no @Type, @Transform,
 * @Expose or @Exclude) given only JSON primitives. For such a class plainToInstance is `new cls()`
 * plus the given properties, and validate() calls each rule's own validator with the same
 * arguments in the same order; this does exactly that, once per rule, and accepts only when every
 * rule holds. Anything else (a rule that fails or answers with a promise, a value that is an object,
 * a property without rules, a required one missing) returns undefined: the caller then runs the
 * general path, which finds the same verdict and words its issues. On a busy endpoint this halves
 * what validating a call costs.
 */
export function acceptFast<T extends object>(cls: new () => T, plain: Record<string, unknown>, schema: JsonSchema): T | undefined {
  let plan = plans.get(cls);
  if (plan === undefined) plans.set(cls, (plan = planFor(cls, schema)));
  if (plan === null) return undefined;
  const keys = Object.keys(plain);
  for (const key of keys) {
    const value = plain[key];
    // Objects and arrays go through class-transformer; a key the prototype has (an accessor, a method, `constructor`) too.
    if ((typeof value === 'object' && value !== null) || key in plan.prototype) return undefined;
  }
  const created = new cls();
  const instance = created as Record<string, unknown>;
  for (const key of keys) instance[key] = plain[key];
  // whitelist + forbidNonWhitelisted: a property of the instance without rules would be reported.
  for (const key of Object.keys(instance)) if (!plan.ruled.has(key)) return undefined;
  for (const name of plan.required) if (instance[name] === undefined) return undefined;
  const targetName = cls.name;
  for (const property of plan.properties) {
    const value = instance[property.name];
    let applies = true;
    for (const condition of property.conditions) applies = (condition.constraints[0] as (o: object, v: unknown) => boolean)(instance, value) && applies;
    if (!applies) continue;
    for (const { metadata, constraints } of property.rules) {
      if (metadata.validateIf && !metadata.validateIf(instance, value)) continue;
      const args: ValidationArguments = { targetName, property: metadata.propertyName, object: instance, value, constraints: metadata.constraints };
      for (const constraint of constraints) {
        const verdict: unknown = constraint.instance.validate(value, args);
        if (!verdict || typeof (verdict as Promise<unknown>).then === 'function') return undefined;
      }
    }
  }
  return created;
}

interface Plan {
  prototype: object;
  /** Properties with at least one rule (what the whitelist lets through). */
  ruled: Set<string>;
  required: string[];
  properties: {
    name: string;
    conditions: ValidationMetadata[];
    rules: { metadata: ValidationMetadata; constraints: ConstraintMetadata[] }[];
  }[];
}

// The store behind @Type, @Transform, @Expose and @Exclude: class-transformer keeps it in a module of its own.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformMetadata };
const { TransformationType } = require('class-transformer/cjs/enums') as { TransformationType: typeof TransformationTypes };

/** Per class: its plan, or null when the class needs the general path whatever it is given. */
const plans = new WeakMap<Function, Plan | null>();

function planFor(cls: Function, schema: JsonSchema): Plan | null {
  if (classShapes(cls).size > 0) return null;
  if (defaultMetadataStorage.getStrategy(cls) !== 'none') return null;
  const storage = getMetadataStorage();
  // As validate() asks for them with no groups and `always` off.
  const grouped = storage.groupByPropertyName(storage.getTargetValidationMetadatas(cls, '', false, false, undefined));
  // No rules at all: validate() reports an unknown value, in words of its own.
  if (Object.keys(grouped).length === 0) return null;
  const properties: Plan['properties'] = [];
  for (const [name, metadatas] of Object.entries(grouped)) {
    if (
      defaultMetadataStorage.findTypeMetadata(cls, name) ||
      defaultMetadataStorage.findExposeMetadata(cls, name) ||
      defaultMetadataStorage.findExcludeMetadata(cls, name) ||
      defaultMetadataStorage.findTransformMetadatas(cls, name, TransformationType.PLAIN_TO_CLASS).length > 0
    ) {
      return null;
    }
    const property: Plan['properties'][number] = { name, conditions: [], rules: [] };
    for (const metadata of metadatas) {
      switch (metadata.type) {
        case ValidationTypes.WHITELIST:
          break;
        case ValidationTypes.CONDITIONAL_VALIDATION:
          property.conditions.push(metadata);
          break;
        case ValidationTypes.CUSTOM_VALIDATION:
          // Rules applied to each item of an array: arrays take the general path anyway, but the rule's meaning differs.
          if (metadata.each) return null;
          property.rules.push({ metadata, constraints: storage.getTargetValidatorConstraints(metadata.constraintCls) });
          break;
        default:
          // Nested, promise and @IsDefined rules: the general path.
          return null;
      }
    }
    properties.push(property);
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return { prototype: cls.prototype as object, ruled: new Set(Object.keys(grouped)), required, properties };
}
