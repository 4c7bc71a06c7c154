// No imports on purpose: the decorators, the scanner and the registry all throw it.

/** Thrown when a definition cannot be served; the message names where it was declared. */
export class DefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DefinitionError';
  }
}
