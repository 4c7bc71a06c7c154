/**
 * Class walking: the JSON Schema of an input class (classToJsonSchema), built by visiting its
 * validated properties (parents' first) and the classes nested in them, which go to `$defs` (or
 * are written out in place when they declare header parameters); and what building it learned,
 * cached per class (classShapes, classProblems). What each property becomes is
 * property-schema.ts's; the rule → keyword tables are rule-schemas.ts's.
 */
import 'reflect-metadata';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { getFieldOptions } from './field';
import { deepFreeze, type JsonSchema } from './json-schema';
import { HEADER_KEYWORD } from './header-parameters';
import { propertySchema, resolveNestedClass, type ClassInfo, type ClassSchemas, type DefinitionProblem, type PropertyShape, type ValidationMetadata } from './property-schema';

export type { DefinitionProblem, PropertyShape } from './property-schema';

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
class SchemaBuilder implements ClassSchemas {
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

  ref(cls: Function): JsonSchema {
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
  single(cls: Function): JsonSchema {
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
      properties[property] = propertySchema(this, cls, property, rules, info);
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
