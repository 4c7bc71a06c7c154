/// <reference path="./class-transformer-storage.d.ts" />
/**
 * Property → schema mapping: what one property of an input class becomes in JSON Schema, from its
 * rules (through the constraint tables of rule-schemas.ts), its reflected TypeScript type,
 * class-transformer's `@Type` and `@Field`; what validation must do to the property beyond
 * class-validator (PropertyShape); and what the schema cannot express, said with the way out
 * (DefinitionProblem). Walking classes and collecting `$defs` is class-schema.ts's.
 */
import 'reflect-metadata';
import { ValidationTypes, type MetadataStorage } from 'class-validator';
import { defaultMetadataStorage as transformerStorage } from 'class-transformer/cjs/storage';
import { getFieldOptions, type FieldOptions } from './field';
import type { JsonSchema } from './json-schema';
import { HEADER_KEYWORD } from './header-parameters';
import { RULES, raise, typeFirst } from './rule-schemas';

export type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/**
 * What validation does to one property beyond class-validator: a `date` arrives as an ISO 8601
 * date-time string and becomes a Date; a `set` (array) and a `map` (object) are checked for their
 * JSON type before class-transformer's `@Type(() => Set | Map)` converts them; a `nested` value
 * holds instances of `cls`. `each` means the array's elements.
 */
export type PropertyShape = { kind: 'date'; each: boolean } | { kind: 'set' } | { kind: 'map' } | { kind: 'nested'; each: boolean; cls: Function };

/**
 * Something a class's schema cannot express. `error`: a call can never succeed as intended (so
 * it is refused at startup); `warning`: the schema only loses checking. `message` names the class
 * and the property and says the way out.
 */
export interface DefinitionProblem {
  severity: 'error' | 'warning';
  message: string;
}

/** What the builder learned about one class: its special properties and its problems. */
export interface ClassInfo {
  shapes: Map<string, PropertyShape>;
  problems: DefinitionProblem[];
}

/** Where a property holding instances of another class gets that class's schema (the builder of the document). */
export interface ClassSchemas {
  /** A `$ref` to the class's schema (in `$defs`, or `#` for the root). */
  ref(cls: Function): JsonSchema;
  /** The schema of a property holding one instance: a `$ref`, or the class written out in place. */
  single(cls: Function): JsonSchema;
}

/**
 * The schema of one property from its class-validator rules, its TypeScript design type,
 * class-transformer's `@Type` and its `@Field` options; what validation must convert and what the
 * schema cannot express go to `info`. A nested class's schema comes from `classes`.
 */
export function propertySchema(classes: ClassSchemas, cls: Function, property: string, rules: ValidationMetadata[], info: ClassInfo): JsonSchema {
  let own: JsonSchema = {};
  let items: JsonSchema = {}; // rules declared with `each: true` describe the array elements
  let notEmpty = false;
  let notEmptyEach = false;
  let nested = false;
  let nestedEach = false;
  for (const m of rules) {
    if (m.type === ValidationTypes.NESTED_VALIDATION) {
      nested = true;
      nestedEach ||= m.each;
    } else if (m.type === ValidationTypes.CUSTOM_VALIDATION && m.name === 'isNotEmpty') {
      // means minLength 1 only for strings; decided once the type is known
      if (m.each) notEmptyEach = true;
      else notEmpty = true;
    } else if (m.type === ValidationTypes.CUSTOM_VALIDATION && m.name) {
      RULES[m.name]?.(m.each ? items : own, m.constraints ?? []);
    }
  }

  const where = `${cls.name || '(anonymous class)'}.${property}`;
  const problemsBefore = info.problems.length;
  const field = getFieldOptions(cls, property);
  const designType: unknown = Reflect.getMetadata('design:type', cls.prototype, property);
  const declaredType = transformerType(cls, property);
  const collection = designType === Set || declaredType === Set ? 'set' : designType === Map || declaredType === Map ? 'map' : undefined;
  if (collection === 'map') {
    own.type = 'object';
    // @IsString({ each: true }) on a Map checks its values
    if (Object.keys(items).length > 0) own.additionalProperties = typeFirst(items);
    items = {};
  }
  const isArray = own.type === 'array' || designType === Array || collection === 'set' || nestedEach || Object.keys(items).length > 0 || notEmptyEach;

  // A Date travels as an ISO 8601 date-time string; validation turns it into a Date (classShapes).
  const isDate = designType === Date || declaredType === Date || rules.some((m) => m.name === 'isDate');
  if (isDate) {
    const target = isArray ? items : own;
    target.type = 'string';
    target.format = 'date-time';
    info.shapes.set(property, { kind: 'date', each: isArray });
  }

  if (nested) {
    const nestedClass = resolveNestedClass(cls, property, designType);
    const target = nestedClass ? (isArray ? classes.ref(nestedClass) : classes.single(nestedClass)) : { type: 'object' };
    if (isArray) items = { ...target, ...items };
    else own = { ...target, ...own };
    if (nestedClass) info.shapes.set(property, { kind: 'nested', each: isArray, cls: nestedClass });
    else {
      info.problems.push({
        severity: 'error',
        message:
          `${where}: @ValidateNested() cannot tell the class of ${isArray ? 'its elements' : 'its value'} ` +
          `(${
            isArray
              ? 'the element type of an array is not reflected'
              : designType === undefined
                ? 'no design type was emitted: this code was compiled without decorator metadata'
                : `its type is reflected as ${typeName(designType)}`
          }), ` +
          `so class-validator refuses every value as "an unknown value": add @Type(() => ${isArray ? 'ItemClass' : 'ValueClass'}) from class-transformer`,
      });
    }
  }

  if (collection) {
    info.shapes.set(property, { kind: collection });
    const ctor = collection === 'set' ? 'Set' : 'Map';
    if (declaredType !== (collection === 'set' ? Set : Map)) {
      info.problems.push({
        severity: 'error',
        message:
          `${where}: a ${ctor} cannot travel as JSON, and without @Type(() => ${ctor}) the method would get a plain ${collection === 'set' ? 'array' : 'object'}, not a ${ctor}: ` +
          `add @Type(() => ${ctor}) from class-transformer, or type it as ${collection === 'set' ? 'an array' : 'Record<string, T>'}`,
      });
    }
  }

  if (designType === Function || designType === Symbol || designType === BigInt) {
    const what = designType === Function ? 'a function' : designType === Symbol ? 'a symbol' : 'a bigint';
    info.problems.push({
      severity: 'error',
      message: `${where}: its type is ${what}, which JSON arguments cannot carry, so no call can give it: remove it from the input class, or type it as a string or number and convert it in the method`,
    });
  }

  // Without a type rule fall back to the TS type, so `@Field() name!: string` still says string.
  const hasValueConstraint = 'enum' in own || 'const' in own || '$ref' in own;
  if (!isArray && own.type === undefined && !hasValueConstraint) {
    const inferred = DESIGN_TYPES.get(designType);
    if (inferred) own.type = inferred;
  }
  if (notEmpty && own.type === 'string') raise(own, 'minLength', 1);
  if (notEmptyEach && items.type === 'string') raise(items, 'minLength', 1);

  let schema = own;
  if (isArray) {
    schema = { ...own, type: 'array' };
    if (Object.keys(items).length > 0) schema.items = typeFirst(items);
  }
  if (Object.keys(schema).length === 0 && field?.schema === undefined && info.problems.length === problemsBefore) {
    info.problems.push({ severity: 'warning', message: `${where}: ${unconstrained(designType)}` });
  }
  return annotate(typeFirst(schema), field);
}

/** Why a property's schema came out empty (so any JSON value passes), and the way out. */
function unconstrained(designType: unknown): string {
  const wayOut =
    'add a rule that says what it holds (@IsString(), @IsIn([...]), @IsObject(), @ValidateNested() with @Type(() => SomeClass)), ' +
    'or describe it with @Field({ schema: {...} }) (@Field({ schema: {} }) accepts any JSON value on purpose)';
  let why: string;
  if (designType === undefined) {
    why = 'no design type was emitted for it (this code was compiled without decorator metadata)';
  } else if (designType === Object) {
    why = 'its TypeScript type is reflected as Object (a union of different types, unknown, any, an interface or an object type)';
  } else if (typeof designType === 'function' && !BUILTIN_TYPES.has(designType)) {
    why = `it is typed as class ${typeName(designType)} without @ValidateNested(), so its properties are not checked and the method gets a plain object`;
    return `the schema accepts any JSON value here: ${why}: add @ValidateNested() and @Type(() => ${typeName(designType)}), or describe it with @Field({ schema: {...} })`;
  } else {
    why = `its type ${typeName(designType)} has no JSON Schema mapping`;
  }
  return `the schema accepts any JSON value here: ${why}: ${wayOut}`;
}

function typeName(type: unknown): string {
  return typeof type === 'function' ? type.name || 'an anonymous class' : String(type);
}

/** The type a class-transformer `@Type(() => X)` names, if it can be called without arguments. */
function transformerType(cls: Function, property: string): Function | undefined {
  const typeMeta = transformerStorage.findTypeMetadata(cls, property);
  if (!typeMeta) return undefined;
  try {
    const t = typeMeta.typeFunction();
    return typeof t === 'function' ? t : undefined;
  } catch {
    return undefined; // a @Type function that needs its runtime arguments
  }
}

const DESIGN_TYPES = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
]);

// Types reported by design:type that are never a nested input class.
const BUILTIN_TYPES = new Set<unknown>([Object, Array, String, Number, Boolean, Date, Map, Set, Promise, Function]);

/** The class of a @ValidateNested property: class-transformer's @Type, else the TS design type. */
export function resolveNestedClass(cls: Function, property: string, designType: unknown): Function | undefined {
  const t = transformerType(cls, property);
  if (t && !BUILTIN_TYPES.has(t)) return t;
  return typeof designType === 'function' && !BUILTIN_TYPES.has(designType) ? designType : undefined;
}

/** Applies @Field annotations; `schema` extras are merged last so they can override anything. */
function annotate(schema: JsonSchema, field: FieldOptions | undefined): JsonSchema {
  if (!field) return schema;
  const out: JsonSchema = {};
  if (field.title !== undefined) out.title = field.title;
  if (field.description !== undefined) out.description = field.description;
  Object.assign(out, schema);
  if (field.format !== undefined) out.format = field.format;
  if (field.default !== undefined) out.default = field.default;
  if (field.examples !== undefined) out.examples = field.examples;
  if (field.deprecated !== undefined) out.deprecated = field.deprecated;
  if (field.header !== undefined) out[HEADER_KEYWORD] = field.header;
  return Object.assign(out, field.schema);
}
