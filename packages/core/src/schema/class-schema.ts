/// <reference path="./class-transformer-storage.d.ts" />
import 'reflect-metadata';
import { getMetadataStorage, ValidationTypes, type MetadataStorage } from 'class-validator';
import { defaultMetadataStorage as transformerStorage } from 'class-transformer/cjs/storage';
import { getFieldOptions, type FieldOptions } from './field';
import { deepFreeze, type JsonSchema } from './json-schema';
import { HEADER_KEYWORD } from './header-parameters';

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
type RuleMapper = (schema: JsonSchema, constraints: unknown[]) => void;

/**
 * What validation does to one property beyond class-validator: a `date` arrives as an ISO 8601
 * date-time string and becomes a Date; a `set` (array) and a `map` (object) are checked for their
 * JSON type before class-transformer's `@Type(() => Set | Map)` converts them; a `nested` value
 * holds instances of `cls`. `each` means the array's elements.
 */
export type PropertyShape =
  | { kind: 'date'; each: boolean }
  | { kind: 'set' }
  | { kind: 'map' }
  | { kind: 'nested'; each: boolean; cls: Function };

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
interface ClassInfo {
  shapes: Map<string, PropertyShape>;
  problems: DefinitionProblem[];
}

const cache = new WeakMap<Function, JsonSchema>();
const infos = new WeakMap<Function, ClassInfo>();

/** The properties of `cls` that validation converts or descends into (see PropertyShape). */
export function classShapes(cls: Function): ReadonlyMap<string, PropertyShape> {
  return classInfo(cls).shapes;
}

/** What the schema of `cls` itself cannot express (nested classes are reported on their own). */
export function classProblems(cls: Function): readonly DefinitionProblem[] {
  return classInfo(cls).problems;
}

function classInfo(cls: Function): ClassInfo {
  let info = infos.get(cls);
  if (!info) {
    // Building any schema that holds the class records it; a class seen only as a root is built here.
    classToJsonSchema(cls);
    info = infos.get(cls) ?? new SchemaBuilder(cls).info(cls);
  }
  return info;
}

/**
 * JSON Schema (draft 2020-12, self-contained) for a class decorated with class-validator rules.
 * Nested classes go to `$defs`; a reference back to the root class is `{"$ref": "#"}`.
 * The result is cached per class and deep-frozen: clone it before changing it.
 */
export function classToJsonSchema(cls: Function): JsonSchema {
  let schema = cache.get(cls);
  if (!schema) {
    // structuredClone detaches the result from user-owned values (defaults, examples) before freezing.
    schema = deepFreeze(structuredClone(new SchemaBuilder(cls).build()));
    cache.set(cls, schema);
  }
  return schema;
}

/** Builds one root document; holds the `$defs` being collected and the names given to classes. */
class SchemaBuilder {
  private readonly defs: Record<string, JsonSchema> = {};
  private readonly names = new Map<Function, string>();
  /** Classes being written out in place (see `single`), to stop at a cycle. */
  private readonly inlining = new Set<Function>();

  constructor(private readonly root: Function) {}

  build(): JsonSchema {
    const schema = this.objectSchema(this.root);
    if (Object.keys(this.defs).length > 0) schema.$defs = this.defs;
    return schema;
  }

  /** Builds the class's schema only for what it records (its shapes and problems). */
  info(cls: Function): ClassInfo {
    this.objectSchema(cls);
    return infos.get(cls)!;
  }

  private ref(cls: Function): JsonSchema {
    if (cls === this.root) return { $ref: '#' };
    let name = this.names.get(cls);
    if (name === undefined) {
      // Same-named distinct classes get a suffix so they don't overwrite each other.
      const used = new Set(this.names.values());
      const base = cls.name || 'Anonymous';
      name = base;
      for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
      // Register before building so a recursive class finds its own name instead of looping;
      // the placeholder keeps $defs in discovery order.
      this.names.set(cls, name);
      this.defs[name] = {};
      this.defs[name] = this.objectSchema(cls);
    }
    return { $ref: `#/$defs/${name}` };
  }

  /**
   * The schema of a property holding one instance of `cls`: a `$ref`, unless `cls` declares header
   * parameters (`@Field({ header })`), which are only valid where a chain of `properties` reaches
   * them; so such a class is written out in place. A class already being written out (a cycle)
   * falls back to `$ref`, and its headers are then reported where the tool is defined.
   */
  private single(cls: Function): JsonSchema {
    if (cls === this.root || this.inlining.has(cls) || !declaresHeaders(cls)) return this.ref(cls);
    this.inlining.add(cls);
    try {
      return this.objectSchema(cls);
    } finally {
      this.inlining.delete(cls);
    }
  }

  private objectSchema(cls: Function): JsonSchema {
    const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
    // class-validator lists the class's own rules before inherited ones; show parent fields first.
    const depth = (m: ValidationMetadata) => ancestorDistance(cls, m.target);
    const sorted = [...metas].sort((a, b) => depth(b) - depth(a));
    const byProperty = new Map<string, ValidationMetadata[]>();
    for (const m of sorted) {
      const list = byProperty.get(m.propertyName) ?? [];
      list.push(m);
      byProperty.set(m.propertyName, list);
    }

    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const info: ClassInfo = { shapes: new Map(), problems: [] };
    for (const [property, rules] of byProperty) {
      properties[property] = this.propertySchema(cls, property, rules, info);
      // @IsOptional / @ValidateIf skip every rule of the property when absent, even @IsDefined
      // (class-validator 0.15 checks conditions first); all other properties are required.
      if (!rules.some((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION)) required.push(property);
    }
    if (!infos.has(cls)) infos.set(cls, info);
    return {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    };
  }

  private propertySchema(cls: Function, property: string, rules: ValidationMetadata[], info: ClassInfo): JsonSchema {
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
    const isArray =
      own.type === 'array' || designType === Array || collection === 'set' || nestedEach || Object.keys(items).length > 0 || notEmptyEach;

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
      const target = nestedClass ? (isArray ? this.ref(nestedClass) : this.single(nestedClass)) : { type: 'object' };
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
function resolveNestedClass(cls: Function, property: string, designType: unknown): Function | undefined {
  const t = transformerType(cls, property);
  if (t && !BUILTIN_TYPES.has(t)) return t;
  return typeof designType === 'function' && !BUILTIN_TYPES.has(designType) ? designType : undefined;
}

/**
 * Whether `cls`, or a class nested in it as a single value, has a property marked as a header
 * parameter (`@Field({ header })`, or `x-mcp-header` given through `@Field({ schema })`).
 */
function declaresHeaders(cls: Function, seen = new Set<Function>()): boolean {
  if (seen.has(cls)) return false;
  seen.add(cls);
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  for (const property of new Set(metas.map((m) => m.propertyName))) {
    const field = getFieldOptions(cls, property);
    if (field?.header !== undefined || (field?.schema && HEADER_KEYWORD in field.schema)) return true;
  }
  for (const m of metas) {
    if (m.type !== ValidationTypes.NESTED_VALIDATION || m.each) continue;
    const designType: unknown = Reflect.getMetadata('design:type', cls.prototype, m.propertyName);
    if (designType === Array || designType === Set || designType === Map) continue;
    const nested = resolveNestedClass(cls, m.propertyName, designType);
    if (nested && declaresHeaders(nested, seen)) return true;
  }
  return false;
}

/** Number of prototype steps from `cls` up to `target` (0 = declared on `cls` itself). */
function ancestorDistance(cls: Function, target: Function | string): number {
  let d = 0;
  for (let c: unknown = cls; typeof c === 'function' && c !== target; c = Object.getPrototypeOf(c)) d++;
  return d;
}

// ---- mapping of class-validator rule names (metadata `name`) to JSON Schema keywords ----

function setType(s: JsonSchema, type: string): void {
  // integer refines number (IsInt + Min); otherwise the first type seen wins.
  if (s.type === undefined || (s.type === 'number' && type === 'integer')) s.type = type;
}

/** Applies a lower bound, keeping the stricter one if several rules set it. */
function raise(s: JsonSchema, key: string, value: unknown): void {
  if (typeof value !== 'number') return;
  s[key] = typeof s[key] === 'number' ? Math.max(s[key] as number, value) : value;
}

/** Applies an upper bound, keeping the stricter one. */
function lower(s: JsonSchema, key: string, value: unknown): void {
  if (typeof value !== 'number') return;
  s[key] = typeof s[key] === 'number' ? Math.min(s[key] as number, value) : value;
}

function setEnum(s: JsonSchema, values: unknown[]): void {
  // Two value rules on one property must both hold: keep the intersection.
  const prev = s.enum as unknown[] | undefined;
  s.enum = prev ? prev.filter((v) => values.includes(v)) : [...values];
  typeOfValues(s, s.enum as unknown[]);
}

/** Adds `type` when all allowed values share one primitive type (clients and LLMs rely on it). */
function typeOfValues(s: JsonSchema, values: unknown[]): void {
  const kinds = new Set(values.map((v) => typeof v));
  if (kinds.size === 1) {
    const kind = [...kinds][0];
    if (kind === 'string' || kind === 'number' || kind === 'boolean') setType(s, kind);
  }
}

function notIn(s: JsonSchema, values: unknown[]): void {
  const not = (s.not ??= { enum: [] }) as { enum: unknown[] };
  not.enum.push(...values);
}

/** Values of a TS enum (or plain object); drops the reverse entries of numeric enums (E[0] === 'A'). */
function enumValues(e: unknown): unknown[] {
  if (!e || typeof e !== 'object') return [];
  const obj = e as Record<string, unknown>;
  const isReverse = (k: string) => {
    const member = obj[k];
    return typeof member === 'string' && typeof obj[member] === 'number' && String(obj[member]) === k;
  };
  return [...new Set(Object.keys(obj).filter((k) => !isReverse(k)).map((k) => obj[k]))];
}

function addPattern(s: JsonSchema, source: string): void {
  // A schema holds a single `pattern`; further ones must all match, so they go to allOf.
  if (s.pattern === undefined) s.pattern = source;
  else ((s.allOf ??= []) as JsonSchema[]).push({ pattern: source });
}

/**
 * The `pattern` for a @Matches rule, or undefined when it cannot be expressed faithfully:
 * JSON Schema patterns have no flags, so i/m/s regexes are omitted (an approximation would
 * reject valid input); sources that are invalid as unicode regexes (ajv uses the u flag) too.
 */
function patternSource(pattern: unknown, modifiers: unknown): string | undefined {
  let re: RegExp;
  try {
    re = pattern instanceof RegExp ? pattern : new RegExp(String(pattern), typeof modifiers === 'string' ? modifiers : undefined);
    if (/[ims]/.test(re.flags)) return undefined;
    new RegExp(re.source, 'u');
  } catch {
    return undefined;
  }
  return re.source;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A rule that implies a JSON type (class-validator checks typeof / Array.isArray first) plus keywords. */
const typed =
  (type: string, apply?: RuleMapper): RuleMapper =>
  (s, c) => {
    setType(s, type);
    apply?.(s, c);
  };
const format = (name: string) => typed('string', (s) => (s.format = name));

const RULES: Record<string, RuleMapper> = {
  isString: typed('string'),
  isNumber: typed('number'),
  isInt: typed('integer'),
  isBoolean: typed('boolean'),
  isObject: typed('object'),
  isNotEmptyObject: typed('object', (s) => raise(s, 'minProperties', 1)),
  isEnum: (s, [e]) => setEnum(s, enumValues(e)),
  isIn: (s, [values]) => Array.isArray(values) && setEnum(s, values),
  equals: (s, [value]) => {
    s.const = value;
    typeOfValues(s, [value]);
  },
  notEquals: (s, [value]) => notIn(s, [value]),
  isNotIn: (s, [values]) => Array.isArray(values) && notIn(s, values),

  min: typed('number', (s, [n]) => raise(s, 'minimum', n)),
  max: typed('number', (s, [n]) => lower(s, 'maximum', n)),
  isPositive: typed('number', (s) => raise(s, 'exclusiveMinimum', 0)),
  isNegative: typed('number', (s) => lower(s, 'exclusiveMaximum', 0)),
  isDivisibleBy: typed('number', (s, [n]) => typeof n === 'number' && n > 0 && (s.multipleOf = n)),

  minLength: typed('string', (s, [n]) => raise(s, 'minLength', n)),
  maxLength: typed('string', (s, [n]) => lower(s, 'maxLength', n)),
  isLength: typed('string', (s, [min, max]) => {
    raise(s, 'minLength', min);
    lower(s, 'maxLength', max);
  }),
  matches: typed('string', (s, [pattern, modifiers]) => {
    const source = patternSource(pattern, modifiers);
    if (source !== undefined) addPattern(s, source);
  }),
  contains: typed('string', (s, [seed]) => typeof seed === 'string' && addPattern(s, escapeRegExp(seed))),
  isEmail: format('email'),
  isUrl: format('uri'),
  isUuid: format('uuid'),
  isFqdn: format('hostname'),
  // ISO 8601 also admits date-only values; date-time is the closest standard format.
  isDateString: format('date-time'),
  isIso8601: format('date-time'),
  isRFC3339: format('date-time'),
  // A Date property: validation turns the ISO 8601 string into a Date before this rule runs.
  isDate: format('date-time'),
  isIp: typed('string', (s, [version]) => {
    const v = String(version ?? '');
    if (v === '4' || v === '6') s.format = `ipv${v}`;
  }),

  isArray: typed('array'),
  arrayMinSize: typed('array', (s, [n]) => raise(s, 'minItems', n)),
  arrayMaxSize: typed('array', (s, [n]) => lower(s, 'maxItems', n)),
  arrayNotEmpty: typed('array', (s) => raise(s, 'minItems', 1)),
  // uniqueItems compares deeply; a custom selector only makes the runtime rule stricter.
  arrayUnique: typed('array', (s) => (s.uniqueItems = true)),
};

/** Puts `type` first for readable output. */
function typeFirst(s: JsonSchema): JsonSchema {
  if (!('type' in s)) return s;
  const { type, ...rest } = s;
  return { type, ...rest };
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
