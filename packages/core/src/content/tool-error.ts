import { McpxError } from '../errors';

/**
 * A tool's failure told to the model in its own words: thrown from a tool, it becomes a result with
 * `isError: true` and this message, which `maskErrors` leaves as it is (any other thrown error is
 * replaced there by a generic message). Write the message for the model: what went wrong, what to try.
 */
export class ToolError extends McpxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MCPX_TOOL_ERROR', message, options);
  }
}
