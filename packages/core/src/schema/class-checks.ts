import { getMetadataStorage } from 'class-validator';
import { classProblems, classShapes, type DefinitionProblem } from './class-schema';

export type { DefinitionProblem } from './class-schema';

/**
 * What the schema of an input class (and of every class nested in it) cannot express, found
 * without a call: errors where no call can succeed as intended, warnings where the schema only
 * loses checking. Each message names the class and the property and says the way out.
 *
 * - no class-validator rule and no `@Field` on any property → error: the schema lists no
 *   properties, every call that passes them is refused, and the method gets `{}`;
 * - a property without a rule or `@Field` beside ones with → error: class-validator's whitelist
 *   finds it on every instance (declared or initialized) and refuses every call;
 * - `@ValidateNested()` without a class to validate against, a Set or Map without `@Type`,
 *   a function, symbol or bigint → error (see class-schema.ts);
 * - a property whose schema says nothing (a union of different types, `unknown`, `any`, an
 *   interface, a class without `@ValidateNested()`, no decorator metadata) → warning.
 *
 * Properties are seen through their decorators; an undecorated one is seen only when the class
 * defines it at run time (an initializer, or TypeScript's `useDefineForClassFields`, the default
 * from target ES2022 on).
 */
export function inputClassProblems(cls: Function): DefinitionProblem[] {
  const out: DefinitionProblem[] = [];
  const seen = new Set<Function>();
  const visit = (c: Function, root: boolean) => {
    if (seen.has(c)) return;
    seen.add(c);
    const declared = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(c, '', true, false)
        .map((m) => m.propertyName),
    );
    const bare = runtimeProperties(c).filter((p) => !declared.has(p));
    const name = c.name || '(anonymous class)';
    if (declared.size === 0 && bare.length > 0) {
      out.push({
        severity: 'error',
        message:
          `${root ? 'input ' : ''}class ${name} has no class-validator rule and no @Field on any property (${bare.join(', ')}), ` +
          `so its schema lists no properties: every call that passes them is refused, and the method only ever gets {}. ` +
          `Mark each property with a rule such as @IsString() or @IsInt(), or with @Field()`,
      });
      return;
    }
    for (const property of bare) {
      // class-validator's whitelist finds it on every instance, sent or not ("property x should not exist").
      out.push({
        severity: 'error',
        message:
          `${name}.${property} has no class-validator rule and no @Field, so every call is refused with "property ${property} should not exist" ` +
          `(the instance always has it): mark it with a rule or @Field(), or move it out of the input class`,
      });
    }
    out.push(...classProblems(c));
    for (const shape of classShapes(c).values()) if (shape.kind === 'nested') visit(shape.cls, false);
  };
  visit(cls, true);
  return out;
}

/** The own properties an instance has right after construction (field declarations and initializers). */
function runtimeProperties(cls: Function): string[] {
  try {
    return Object.keys(new (cls as new () => object)());
  } catch {
    return []; // a constructor that needs arguments: class-transformer could not build it either
  }
}
