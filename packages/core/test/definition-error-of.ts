import { DefinitionError } from '../src';

/** Runs `make`, which must throw a DefinitionError, and returns it; anything else fails the test. */
export function definitionError(make: () => unknown): DefinitionError {
  try {
    make();
  } catch (err) {
    if (err instanceof DefinitionError) return err;
    throw err;
  }
  throw new Error('expected a DefinitionError');
}
