// Only the errors module, which imports nothing of the framework: the decorators, the scanner and the registry all throw it.
import { McpxError } from './errors';

/** Thrown when a definition cannot be served; the message names where it was declared. */
export class DefinitionError extends McpxError {
  constructor(message: string) {
    super('MCPX_DEFINITION', message);
  }
}
