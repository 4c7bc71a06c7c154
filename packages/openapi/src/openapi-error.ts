import { McpxError } from '@mcpx/core/errors';

/** An OpenAPI description that cannot be served, or a call that cannot be made as its operation says (code MCPX_OPENAPI). */
export class OpenApiError extends McpxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MCPX_OPENAPI', message, options);
  }
}
