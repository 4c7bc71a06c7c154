import { DefinitionError } from './definition-error';

/**
 * A standard (TC39) decorator is called with `(value, context)`, where `context.kind` says what it
 * decorates; TypeScript uses them when `experimentalDecorators` is off. mcpx's decorators (and
 * class-validator's) are the experimental ones, called with `(prototype, name, descriptor)`.
 */
export function isStandardDecoratorContext(value: unknown): value is { kind: string; name?: string | symbol } {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string' && 'name' in value;
}

/** The error for a decorator applied as a standard decorator: names the flag that fixes it. */
export function standardDecoratorError(decorator: string, context: { kind: string; name?: string | symbol }): DefinitionError {
  const what = `${context.kind} ${typeof context.name === 'string' ? context.name : String(context.name ?? '(anonymous)')}`;
  return new DefinitionError(
    `@${decorator} on ${what} was applied as a standard (TC39) decorator, which mcpx does not support: ` +
      `set "experimentalDecorators": true and "emitDecoratorMetadata": true in the compilerOptions of tsconfig.json ` +
      `(without them TypeScript, tsx and esbuild compile standard decorators; tsc reports TS1240, TS1241 or TS1270 at mcpx's and class-validator's decorators)`,
  );
}
