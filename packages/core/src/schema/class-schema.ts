/// <reference path="./class-transformer-storage.d.ts" />
import 'reflect-metadata';
import { getMetadataStorage, ValidationTypes, type MetadataStorage } from 'class-validator';
import { defaultMetadataStorage as transformerStorage } from 'class-transformer/cjs/storage';
import { getFieldOptions, type FieldOptions } from './field';
import { deepFreeze, type JsonSchema } from './json-schema';

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
type RuleMapper = (schema: JsonSchema, constraints: unknown[]) => void;

const cache = new WeakMap<Function, JsonSchema>();

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

  constructor(private readonly root: Function) {}

  build(): JsonSchema {
    const schema = this.objectSchema(this.root);
    if (Object.keys(this.defs).length > 0) schema.$defs = this.defs;
    return schema;
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
    for (const [property, rules] of byProperty) {
      properties[property] = this.propertySchema(cls, property, rules);
      // @IsOptional / @ValidateIf skip every rule of the property when absent, even @IsDefined
      // (class-validator 0.15 checks conditions first); all other properties are required.
      if (!rules.some((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION)) required.push(property);
    }
    return {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    };
  }

  private propertySchema(cls: Function, property: string, rules: ValidationMetadata[]): JsonSchema {
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

    const designType: unknown = Reflect.getMetadata('design:type', cls.prototype, property);
    const isArray =
      own.type === 'array' || designType === Array || nestedEach || Object.keys(items).length > 0 || notEmptyEach;

    if (nested) {
      const nestedClass = resolveNestedClass(cls, property, designType);
      const target = nestedClass ? this.ref(nestedClass) : { type: 'object' };
      if (isArray) items = { ...target, ...items };
      else own = { ...target, ...own };
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
    return annotate(typeFirst(schema), getFieldOptions(cls, property));
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
  const typeMeta = transformerStorage.findTypeMetadata(cls, property);
  if (typeMeta) {
    try {
      const t = typeMeta.typeFunction();
      if (typeof t === 'function' && !BUILTIN_TYPES.has(t)) return t;
    } catch {
      // a @Type function that needs its runtime arguments: fall through to design:type
    }
  }
  return typeof designType === 'function' && !BUILTIN_TYPES.has(designType) ? designType : undefined;
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
  return Object.assign(out, field.schema);
}
